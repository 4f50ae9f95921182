import { Injectable } from '@nestjs/common';
import type { CommandName, LogLine, ParamsOf, ResultOf } from '@corral/protocol';
import type { Principal } from '../http/principal.js';
import { AgentHub } from '../agents/agent-hub.js';
import { TaskRunner, type TaskAlongside } from '../tasks/task-runner.js';

/** What a guest operation's work gets: its task's UPID, a way to run agent commands and to write log lines. */
/** How a guest operation runs one agent command. */
export interface AgentCallOptions {
  /** Runs even once the task was stopped: it undoes what the stopped work left. */
  readonly cleanup?: boolean;
  /**
   * The operation's last step, after which it writes only what reconciliation also writes (a lock
   * released, an event): when this replica stops before the answer, the answer ends the task on
   * the replica it reaches.
   */
  readonly endsTask?: boolean;
}

export interface GuestWork {
  readonly upid: string;
  /** Runs a command on the guest's node for this task; its output lines go to the task log. */
  agent<K extends CommandName>(command: K, params: ParamsOf<K>, timeoutMs: number, options?: AgentCallOptions): Promise<void>;
  /** Runs a command on any node for this task (a migration's target), its lines going to the task log; resolves with its result. */
  on<K extends CommandName>(
    node: string,
    command: K,
    params: ParamsOf<K>,
    timeoutMs: number,
    options?: AgentCallOptions,
  ): Promise<ResultOf<K>>;
  /** One line of the control plane's own in the task log. */
  line(text: string): void;
}

export interface GuestOperation {
  readonly node: string;
  readonly vmid: number;
  /** PVE's task type: `qmstart`, `vzcreate`, ... */
  readonly type: string;
  readonly caller: Principal;
  /**
   * The state rule of the operation (`VM 100 is already running`): run before the task when no
   * operation on the guest is waiting (a 409 then, and no task), and again when its turn comes
   * (the task's error then).
   */
  readonly check?: () => void;
  /** Written with the task's row, in its transaction (a new guest's row, locked by the task); when it throws, no task starts. */
  readonly alongside?: TaskAlongside;
  readonly work: (work: GuestWork) => Promise<void>;
}

/** A task over several guests of one node (a vzdump). */
export interface GuestBatch {
  readonly node: string;
  /** PVE's task type (`vzdump`) and id (the vmid when there is one guest, else empty). */
  readonly type: string;
  readonly id: string;
  readonly caller: Principal;
  readonly work: (batch: BatchWork) => Promise<void>;
}

export interface BatchWork {
  readonly upid: string;
  line(text: string): void;
  /** Runs `work` in the guest's turn; its agent commands carry the vmid as their step (one run per guest). */
  forGuest<T>(vmid: number, work: (guest: GuestWork) => Promise<T>): Promise<T>;
}

/**
 * Runs the operations on one guest one after another, in the order they were asked for
 * (queued in order, never refused for a lock). Each is a task whose UPID is returned at once.
 * The queue is this replica's: the one that holds the node's agent, the only one that can run
 * operations on its guests until requests are routed between replicas.
 */
@Injectable()
export class GuestTasks {
  private readonly tails = new Map<number, Promise<void>>();

  constructor(
    private readonly runner: TaskRunner,
    private readonly hub: AgentHub,
  ) {}

  /** Whether operations on the guest are running or waiting. */
  busy(vmid: number): boolean {
    return this.tails.has(vmid);
  }

  /** Starts the operation's task (after those before it) and resolves with its UPID at once. */
  async submit(operation: GuestOperation): Promise<string> {
    return (await this.started(operation)).upid;
  }

  /** Starts the operation's task and resolves when its work is done (rejects with its error): for PVE's synchronous answers. */
  async completed(operation: GuestOperation): Promise<void> {
    await (
      await this.started(operation)
    ).done;
  }

  private async started(operation: GuestOperation): Promise<{ upid: string; done: Promise<void> }> {
    let finish: (error?: unknown) => void = () => undefined;
    const done = new Promise<void>((resolve, reject) => {
      finish = (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error))));
    });
    // Handled here: a caller of `submit` does not wait for it, and its failure is the task's.
    done.catch(() => undefined);
    const work = async (guestWork: GuestWork) => {
      try {
        await operation.work(guestWork);
        finish();
      } catch (error) {
        finish(error);
        throw error;
      }
    };
    return { upid: await this.start({ ...operation, work }), done };
  }

  /**
   * Starts a task that works on several guests one after another (a vzdump): `work` gets each
   * guest's turn with `forGuest`, which waits for the operations asked for on that guest before,
   * and holds back those asked for after. Resolves with the UPID at once.
   */
  async submitBatch(batch: GuestBatch): Promise<string> {
    this.hub.holding(batch.node);
    return this.runner.start({ node: batch.node, type: batch.type, id: batch.id, caller: batch.caller }, async (upid, log, signal) => {
      const lines = new LineNumbers(log);
      await batch.work({
        upid,
        line: (text) => lines.line(text),
        forGuest: (vmid, work) =>
          this.queued(vmid, async () => {
            signal.throwIfAborted();
            return work(this.guestWork(batch.node, upid, lines, signal, String(vmid)));
          }),
      });
    });
  }

  private async start(operation: GuestOperation): Promise<string> {
    const { node, vmid, check } = operation;
    this.hub.holding(node);
    const waiting = this.busy(vmid);
    if (!waiting) check?.();
    return this.runner.start(
      { node, type: operation.type, id: String(vmid), caller: operation.caller },
      (upid, log, signal) => {
        const lines = new LineNumbers(log);
        if (waiting) lines.line(`waiting for the operations on ${vmid} asked for before this one`);
        return this.queued(vmid, async () => {
          // Stopped (DELETE .../tasks/{upid}) while it waited: it never runs.
          signal.throwIfAborted();
          check?.();
          await operation.work(this.guestWork(node, upid, lines, signal));
        });
      },
      operation.alongside,
    );
  }

  private guestWork(node: string, upid: string, lines: LineNumbers, signal: AbortSignal, step?: string): GuestWork {
    const on: GuestWork['on'] = (target, command, params, timeoutMs, options) =>
      this.hub.request(target, command, params, {
        timeoutMs,
        upid,
        onLog: lines.step(),
        ...(step !== undefined ? { step } : {}),
        ...(options?.cleanup === true ? {} : { signal }),
        ...(options?.endsTask === true ? { endsTask: true } : {}),
      });
    return {
      upid,
      line: (text) => lines.line(text),
      on,
      agent: async (command, params, timeoutMs, options) => {
        await on(node, command, params, timeoutMs, options);
      },
    };
  }

  private queued<T>(vmid: number, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(vmid) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(vmid, tail);
    void tail.then(() => {
      if (this.tails.get(vmid) === tail) this.tails.delete(vmid);
    });
    return result;
  }
}

/** One task log across several agent commands and the control plane's own lines: each command's lines numbered after the ones before. */
class LineNumbers {
  private last = 0;

  constructor(private readonly log: (lines: readonly LogLine[]) => void) {}

  line(text: string): void {
    this.last += 1;
    this.log([{ n: this.last, text }]);
  }

  /** The log of the next agent command: its line 1 follows the lines so far. */
  step(): (lines: readonly LogLine[]) => void {
    const base = this.last;
    return (lines) => {
      const shifted = lines.map((line) => ({ n: line.n + base, text: line.text }));
      this.last = Math.max(this.last, ...shifted.map((line) => line.n));
      this.log(shifted);
    };
  }
}
