import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { CommandName, LogLine, ParamsOf } from '@corral/protocol';
import { randomInt } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { EntityManager } from 'typeorm';
import { z } from 'zod';
import { callerName, type Principal } from '../http/principal.js';
import { AgentHub } from '../agents/agent-hub.js';
import { DatabaseNotifications } from '../database/notifications.js';
import { isDatabaseUnreachable } from '../errors/database-unreachable.js';
import { LOGGER } from '../logging/loggers.js';
import { REPLICA_STOPPED } from './orphan-ends.js';
import { ReplicaLiveness } from './replica-liveness.js';
import type { TaskRow } from './task.entity.js';
import { TASK_STOPS_CHANNEL, TasksRepository } from './tasks.repository.js';
import { formatUpid } from './upid.js';

export interface TaskSpec {
  readonly node: string;
  /** PVE's task type: `aptupdate`, `srvreload`, `diskinit`, ... */
  readonly type: string;
  /** What it acts on; '' for the node itself. */
  readonly id: string;
  readonly caller: Principal;
}

/**
 * A task's work: it writes output lines through `log` and resolves when done or rejects with the
 * error text. `signal` fires when the task is stopped; the task ends then, whether or not the work
 * has wound down, so work that can be stopped should pass the signal on.
 */
export type TaskWork = (upid: string, log: (lines: readonly LogLine[]) => void, signal: AbortSignal) => Promise<void>;

/** PVE's `pstart`: the start of the worker process in clock ticks; here, of this control-plane process. */
const PSTART = Math.floor(performance.timeOrigin / 10) % 0x1_0000_0000;

/** What is written with a task's row, in its transaction: a guest locked by the task, say. */
export type TaskAlongside = (db: EntityManager, upid: string) => Promise<void>;

/** How often a task's end is tried again while the database is unreachable. */
const END_RETRY_MS = 1000;
/** How a task ends whose start was cut off by the database's connection: its row may have been written, its work never ran. */
export const NEVER_RAN = 'the database became unreachable while the task started; it did not run';

const StopRequest = z.object({ upid: z.string(), by: z.string() });

/**
 * Starts tasks: the UPID is returned at once, the work goes on in the
 * background, its output lines and its end (`OK` or the error text, and PVE's closing `TASK OK` /
 * `TASK ERROR: ...` line) are written to the task tables as they come. Stops them too, on
 * whichever replica runs them.
 */
@Injectable()
export class TaskRunner implements BeforeApplicationShutdown {
  /** The tasks this replica runs: how to stop each, and its run, which settles once its end is written. */
  private readonly running = new Map<string, { readonly controller: AbortController; readonly run: Promise<void> }>();
  /** The tasks whose work still goes on here: a stopped task's work winds down after its end is written. */
  private readonly working = new Set<string>();
  private readonly workEndListeners: ((upid: string) => void)[] = [];
  /** Set once the replica stops: an end that cannot be written then is another replica's to write. */
  private closing = false;

  constructor(
    private readonly tasks: TasksRepository,
    private readonly hub: AgentHub,
    private readonly replica: ReplicaLiveness,
    notifications: DatabaseNotifications,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    // A stop request lost with the notification connection (null) leaves the task to run to its end.
    notifications.subscribe(TASK_STOPS_CHANNEL, (payload) => {
      if (payload !== null) this.stopRequested(payload);
    });
  }

  /** A task whose work is one command on the node's agent. Refused with 503 before it starts when the agent is not here. */
  async onAgent<K extends CommandName>(spec: TaskSpec, command: K, params: ParamsOf<K>, timeoutMs: number): Promise<string> {
    this.hub.reachable(spec.node);
    return this.start(spec, (upid, log, signal) =>
      this.hub.request(spec.node, command, params, { timeoutMs, upid, onLog: log, signal, endsTask: true }).then(() => undefined),
    );
  }

  /**
   * Starts a task: its row (with what `alongside` writes, in one transaction: neither is written
   * without the other) and then its work in the background. Resolves with the UPID.
   */
  async start(spec: TaskSpec, work: TaskWork, alongside?: TaskAlongside): Promise<string> {
    const user = callerName(spec.caller);
    const task = {
      node: spec.node,
      pid: randomInt(1, 0x7fff_ffff),
      pstart: PSTART,
      starttime: Math.floor(Date.now() / 1000),
      type: spec.type,
      id: spec.id,
      user,
    };
    const upid = formatUpid(task);
    try {
      await this.tasks.insert({ upid, ...task, replica: this.replica.id }, alongside && ((db) => alongside(db, upid)));
    } catch (error) {
      // The connection may have been lost after the server committed the row: it is ended, once it can be, as never run.
      if (isDatabaseUnreachable(error)) void this.recordEnd(upid, NEVER_RAN);
      throw error;
    }
    const controller = new AbortController();
    const run = this.run(upid, work, controller.signal).finally(() => this.running.delete(upid));
    this.running.set(upid, { controller, run });
    return upid;
  }

  /**
   * Stops a running task: it ends with `task stopped by <by>`, and the work's signal fires (an agent's
   * command is cancelled). A task of another replica is stopped by that replica, asked through the database.
   */
  async stop(task: Pick<TaskRow, 'upid' | 'replica'>, by: string): Promise<void> {
    if (task.replica !== this.replica.id) return this.tasks.requestStop(task.upid, by);
    const reason = `task stopped by ${by}`;
    if (this.running.has(task.upid)) this.abort(task.upid, reason);
    // Recorded as running here, but its run is over (its end could not be written): ended now.
    else await this.tasks.end(task.upid, reason);
  }

  /** Whether the work of the task still goes on in this replica (it may, for a while, after a stop ended the task). */
  isWorking(upid: string): boolean {
    return this.working.has(upid);
  }

  /** Called with a task's UPID each time the work of a task of this replica has settled, before or after the task's end was written. */
  onWorkEnd(listener: (upid: string) => void): void {
    this.workEndListeners.push(listener);
  }

  /**
   * The runs still going end as stopped with the replica, their ends written before the database
   * closes (after the agent hub has failed its requests). A task waiting for the answer to its last
   * step is left running: its agent moves to another replica, and the answer ends it there.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    const runs = [...this.running].flatMap(([upid, run]) => (this.hub.handsOver(upid) ? [] : [run]));
    for (const { controller } of runs) controller.abort(new Error(REPLICA_STOPPED));
    await Promise.all(runs.map(({ run }) => run));
  }

  private stopRequested(payload: string): void {
    const parsed = StopRequest.safeParse(JSON.parse(payload));
    if (parsed.success) this.abort(parsed.data.upid, `task stopped by ${parsed.data.by}`);
  }

  private abort(upid: string, reason: string): void {
    this.running.get(upid)?.controller.abort(new Error(reason));
  }

  private async run(upid: string, work: TaskWork, signal: AbortSignal): Promise<void> {
    let ended = false;
    // Lines are written in the order they came; the end waits for them, and is written even if they could not be. Lines after the end are dropped.
    let written = Promise.resolve();
    const log = (lines: readonly LogLine[]) => {
      if (ended) return;
      written = written
        .then(() =>
          this.tasks.appendLog(
            upid,
            lines.map((line) => ({ n: line.n, t: line.text })),
          ),
        )
        .catch((error: unknown) => this.logger.error({ err: error, upid }, 'cannot record the output of a task'));
    };
    let exitstatus = 'OK';
    this.working.add(upid);
    const working = work(upid, log, signal).finally(() => {
      this.working.delete(upid);
      for (const listener of this.workEndListeners) listener(upid);
    });
    try {
      await Promise.race([working, stopped(signal)]);
    } catch (error) {
      exitstatus = error instanceof Error ? error.message : String(error);
    }
    ended = true;
    await written;
    await this.recordEnd(upid, exitstatus);
  }

  /**
   * Writes a task's end; while the database is unreachable, again every second until it is back,
   * so that a task that ended during an outage does not stay running.
   */
  private async recordEnd(upid: string, exitstatus: string): Promise<void> {
    for (;;) {
      try {
        await this.tasks.end(upid, exitstatus);
        return;
      } catch (error) {
        if (!isDatabaseUnreachable(error) || this.closing) {
          this.logger.error({ err: error, upid }, 'cannot record the end of a task');
          return;
        }
        this.logger.warn({ err: error, upid }, 'cannot record the end of a task while the database is unreachable; retrying');
        await setTimeout(END_RETRY_MS);
      }
    }
  }
}

/** Rejects with the signal's reason once it fires. */
function stopped(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}
