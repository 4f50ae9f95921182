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
import { agentFailure } from './agent-failure.js';

/** A request's answer may take this much longer than its own timeout (the agent's kill, the way back). */
const ANSWER_GRACE_MS = 5000;

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
}

/** An agent frame that answers a request, found by its `id`. */
export type AnswerFrame = ResultFrame | FailureFrame | LogFrame;

interface Pending {
  readonly command: CommandName;
  readonly frame: RequestFrame;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly onLog: ((lines: readonly LogLine[]) => void) | undefined;
  readonly timer: NodeJS.Timeout;
  /** Stops listening to the request's abort signal. */
  readonly detach: () => void;
}

/**
 * The error of requests whose node went away before it answered them: they (and the tasks they
 * work for) end with it, naming why, instead of at their timeouts.
 */
export function wentAway(node: string, why: string): (command: CommandName) => ApiError {
  return (command) => new ApiError('NODE_UNAVAILABLE', `node '${node}' went away before it answered ${command} (${why})`);
}

/**
 * The requests sent to one agent session and not answered yet, by id. Each settles once: with the
 * agent's result (checked against its command's schema) or failure, at its timeout, when its
 * signal aborts it, or when the session ends (`failAll`). An answer that finds no request (a late
 * one, or one of a request that already ended) is ignored.
 */
export class PendingRequests {
  private readonly requests = new Map<string, Pending>();

  constructor(
    private readonly node: string,
    /** Sends a request, or the cancel of one, to the session's agent where it can take it now. */
    private readonly send: (frame: RequestFrame | CancelFrame) => void,
  ) {}

  /** Sends a command of the catalog and resolves with its checked result. */
  async request<K extends CommandName>(command: K, params: ParamsOf<K>, options: RequestOptions): Promise<ResultOf<K>> {
    const id = randomUUID();
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
      const timer = setTimeout(
        () =>
          this.settle(
            id,
            new ApiError('NODE_TIMEOUT', `node '${this.node}' did not answer ${command} within ${Math.round(options.timeoutMs / 1000)} s`),
          ),
        options.timeoutMs + ANSWER_GRACE_MS,
      );
      const cancel = () => {
        this.send({ type: 'cancel', id });
        this.settle(id, signal?.reason instanceof Error ? signal.reason : new ApiError('INTERNAL', `${command} was cancelled`));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const detach = () => signal?.removeEventListener('abort', cancel);
      this.requests.set(id, { command, frame, resolve: resolve as (result: unknown) => void, reject, onLog: options.onLog, timer, detach });
      this.send(frame);
    });
  }

  /** Sends every request still unanswered again, with its id: the agent runs each once. */
  resend(): void {
    for (const pending of this.requests.values()) this.send(pending.frame);
  }

  /** The agent's result, failure or output lines of a request. */
  answer(frame: AnswerFrame): void {
    const pending = this.requests.get(frame.id);
    if (!pending) return;
    switch (frame.type) {
      case 'result': {
        const checked = parseCommandResult(pending.command, frame.result);
        this.settle(
          frame.id,
          checked.ok
            ? checked
            : new ApiError('INTERNAL', `node '${this.node}' answered with a result that fails its schema: ${checked.message}`),
        );
        return;
      }
      case 'failure':
        this.settle(frame.id, agentFailure(this.node, frame.code, frame.message));
        return;
      case 'log':
        pending.onLog?.(frame.lines);
        return;
    }
  }

  /** Ends every request still unanswered with the error for its command. */
  failAll(error: (command: CommandName) => Error): void {
    for (const [id, pending] of this.requests) this.settle(id, error(pending.command));
  }

  private settle(id: string, outcome: { ok: true; result: unknown } | Error): void {
    const pending = this.requests.get(id);
    if (!pending) return;
    this.requests.delete(id);
    clearTimeout(pending.timer);
    pending.detach();
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome.result);
  }
}
