import {
  parseCommandResult,
  type CancelFrame,
  type CommandName,
  type FailureFrame,
  type LogFrame,
  type LogLine,
  type ParamsOf,
  type RequestFrame,
  type ResultFrame,
  type ResultOf,
} from '@corral/protocol';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { agentFailure, noAnswer } from './agent-failure.js';
import { answerError, type StoredAnswer } from './stored-answer.js';

/** A request's answer may take this much longer than its own timeout (the agent's kill, the way back). */
export const ANSWER_GRACE_MS = 5000;

export interface RequestOptions {
  readonly timeoutMs: number;
  /** The task this request works for: the agent's idempotency key. */
  readonly upid?: string;
  /** Which run of the command this is, where the task runs it for several guests: with `upid`, the idempotency key. */
  readonly step?: string;
  /** Output lines as they arrive, in order, each once. */
  readonly onLog?: (lines: readonly LogLine[]) => void;
  /** Stops the request: the agent is sent a `cancel`, and the request rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * The task's last step (with `upid`): when the replica running the task stops before the answer,
   * the answer ends the task wherever it arrives, and what the task would have written after it is
   * what reconciliation writes.
   */
  readonly endsTask?: boolean;
}

/** A task's request as it is recorded before it is sent. */
export interface RecordedCommand {
  readonly id: string;
  readonly upid: string;
  readonly command: CommandName;
  readonly endsTask: boolean;
  readonly timeoutMs: number;
}

/**
 * Where the requests of tasks are recorded before they are sent, so that another replica can take
 * their answers (agent-requests.repository.ts), and forgotten once answered here.
 */
export interface RequestRecords {
  record(request: RecordedCommand): Promise<void>;
  forget(id: string): void;
}

/** An answer another replica stored for a request waiting here, with the output lines that came before it. */
export interface HandedAnswer {
  readonly lines: readonly LogLine[];
  readonly answer: StoredAnswer;
}

/** An agent frame that answers a request, found by its `id`. */
export type AnswerFrame = ResultFrame | FailureFrame | LogFrame;

interface Pending {
  readonly command: CommandName;
  /** Recorded (agent_requests): its answer may come through another replica. */
  readonly recorded: { readonly upid: string; readonly endsTask: boolean } | null;
  readonly frame: RequestFrame;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly onLog: ((lines: readonly LogLine[]) => void) | undefined;
  readonly timer: NodeJS.Timeout;
  /** Stops listening to the request's abort signal. */
  readonly detach: () => void;
}

/**
 * The requests sent to one agent session and not answered yet, by id. Each settles once: with the
 * agent's result (checked against its command's schema) or failure, here or handed over by another
 * replica, at its timeout, when its signal aborts it, or when the session ends (`failAll`). A
 * task's request is recorded before it is sent (`records`). An answer that finds no request (a late
 * one, or one of a request that already ended) is left to the caller.
 */
export class PendingRequests {
  private readonly requests = new Map<string, Pending>();

  constructor(
    private readonly node: string,
    /** Sends a request, or the cancel of one, to the session's agent where it can take it now. */
    private readonly send: (frame: RequestFrame | CancelFrame) => void,
    private readonly records?: RequestRecords,
  ) {}

  /** Sends a command of the catalog and resolves with its checked result. */
  async request<K extends CommandName>(command: K, params: ParamsOf<K>, options: RequestOptions): Promise<ResultOf<K>> {
    const id = randomUUID();
    const recorded = this.records && options.upid ? { upid: options.upid, endsTask: options.endsTask ?? false } : null;
    options.signal?.throwIfAborted();
    if (recorded) await this.records?.record({ id, command, timeoutMs: options.timeoutMs, ...recorded });
    // Params of the catalog are JSON by construction (zod schemas of JSON values).
    const json = params as RequestFrame['params'];
    const frame: RequestFrame = {
      type: 'request',
      id,
      command,
      params: json,
      timeoutMs: options.timeoutMs,
      ...(options.upid ? { upid: options.upid } : {}),
      ...(options.step ? { step: options.step } : {}),
    };
    const { signal } = options;
    signal?.throwIfAborted();
    return new Promise<ResultOf<K>>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, noAnswer(this.node, command, options.timeoutMs)), options.timeoutMs + ANSWER_GRACE_MS);
      const cancel = () => {
        this.send({ type: 'cancel', id });
        this.settle(id, signal?.reason instanceof Error ? signal.reason : new ApiError('INTERNAL', `${command} was cancelled`));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const detach = () => signal?.removeEventListener('abort', cancel);
      this.requests.set(id, {
        command,
        recorded,
        frame,
        resolve: resolve as (result: unknown) => void,
        reject,
        onLog: options.onLog,
        timer,
        detach,
      });
      this.send(frame);
    });
  }

  /** Sends every request still unanswered again, with its id: the agent runs each once. */
  resend(): void {
    for (const pending of this.requests.values()) this.send(pending.frame);
  }

  /** The agent's result, failure or output lines of a request; false when no request here waits for it. */
  answer(frame: AnswerFrame): boolean {
    const pending = this.requests.get(frame.id);
    if (!pending) return false;
    switch (frame.type) {
      case 'result':
        this.settle(frame.id, this.checked(pending.command, frame.result));
        break;
      case 'failure':
        this.settle(frame.id, agentFailure(this.node, frame.code, frame.message));
        break;
      case 'log':
        pending.onLog?.(frame.lines);
        break;
    }
    return true;
  }

  /** The ids of the recorded requests waiting here: their answers may be stored by another replica. */
  recorded(): string[] {
    return [...this.requests].flatMap(([id, pending]) => (pending.recorded ? [id] : []));
  }

  /**
   * Lets go of the requests that end their task, unsettled (the replica stops: its agents move on,
   * and the replica that takes an answer ends the task with it). Returns their tasks' UPIDs.
   */
  release(): string[] {
    const released: string[] = [];
    for (const [id, pending] of this.requests) {
      if (!pending.recorded?.endsTask) continue;
      this.requests.delete(id);
      clearTimeout(pending.timer);
      pending.detach();
      released.push(pending.recorded.upid);
    }
    return released;
  }

  /** The answer another replica stored for request `id` (its record already removed). */
  handOver(id: string, handed: HandedAnswer): void {
    const pending = this.requests.get(id);
    if (!pending) return;
    if (handed.lines.length > 0) pending.onLog?.(handed.lines);
    const { answer } = handed;
    this.settle(id, 'result' in answer ? this.checked(pending.command, answer.result) : answerError(this.node, pending.command, answer), {
      forget: false,
    });
  }

  /**
   * Ends every request still unanswered with the error for its command; with `keepRecorded`, those
   * of tasks wait on for the answer another replica stores (the session goes on there).
   */
  failAll(error: (command: CommandName) => Error, { keepRecorded = false } = {}): void {
    for (const [id, pending] of this.requests) if (!(keepRecorded && pending.recorded)) this.settle(id, error(pending.command));
  }

  private checked(command: CommandName, result: unknown): { ok: true; result: unknown } | Error {
    const checked = parseCommandResult(command, result);
    return checked.ok
      ? checked
      : new ApiError('INTERNAL', `node '${this.node}' answered with a result that fails its schema: ${checked.message}`);
  }

  private settle(id: string, outcome: { ok: true; result: unknown } | Error, { forget = true } = {}): void {
    const pending = this.requests.get(id);
    if (!pending) return;
    this.requests.delete(id);
    if (forget && pending.recorded) this.records?.forget(id);
    clearTimeout(pending.timer);
    pending.detach();
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome.result);
  }
}
