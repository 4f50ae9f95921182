import {
  parseCommandRequest,
  runCommand,
  type CommandHandlers,
  type CommandRequest,
  type FailureCode,
  type RequestFrame,
  type ResultFrame,
} from '@corral/protocol';
import type { OutgoingFrame } from '../connection/outbox.js';
import type { CommandContext } from '../drivers/command-context.js';
import { CommandFailure } from '../host/command-failure.js';
import type { Logger } from '../logging/logger.js';
import { RequestLog } from './request-log.js';

/** How a request ended: its result, or the code and message of its `failure` frame. */
type Outcome =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly code: FailureCode; readonly message: string };

/** Request ids and task UPIDs remembered for deduplication; the oldest are forgotten beyond this. */
const REMEMBERED = 10_000;

export interface RequestRunnerOptions {
  readonly handlers: CommandHandlers<CommandContext>;
  /** Hands an answer or log frame to the outbox. Throws on a frame that fails its schema. */
  readonly emit: (frame: OutgoingFrame) => void;
  readonly logger: Logger;
  /** How long output lines wait to be batched into one `log` frame. */
  readonly logFlushMs: number;
}

/**
 * Runs the control plane's requests (`RequestFrame`) and answers each exactly once. Within the
 * agent's session a request id is run once (a request sent again after a reconnect is not run
 * again: its answer is in the outbox or acknowledged), and so is a task's UPID (a second request
 * for a task answers with the first one's outcome).
 */
export class RequestRunner {
  private readonly seenIds = new Set<string>();
  /** The outcome of each command run for a task, by `<upid> <command>[ <step>]`. */
  private readonly tasks = new Map<string, Promise<Outcome>>();
  /** Ends a running command with an outcome, by the id of the request it runs for. */
  private readonly running = new Map<string, (outcome: Outcome) => void>();
  private readonly idle: (() => void)[] = [];
  private draining = false;

  constructor(private readonly options: RequestRunnerOptions) {}

  handle(frame: RequestFrame): void {
    const { logger } = this.options;
    if (this.seenIds.has(frame.id))
      return logger.info('request seen before in this session: not run again', { id: frame.id, command: frame.command });
    this.seenIds.add(frame.id);
    bound(this.seenIds);
    // A task may run several commands (a destroy with force: stop, then destroy), or one command
    // for several guests (a vzdump: one `step` each): each once.
    const step =
      frame.upid === undefined ? undefined : [frame.upid, frame.command, ...(frame.step === undefined ? [] : [frame.step])].join(' ');
    const earlier = step === undefined ? undefined : this.tasks.get(step);
    if (earlier !== undefined) {
      logger.info('task seen before in this session: answering with its outcome', {
        id: frame.id,
        command: frame.command,
        upid: frame.upid,
      });
      void earlier.then((outcome) => this.answer(frame, outcome));
      return;
    }
    const outcome = this.start(frame);
    if (step !== undefined) {
      this.tasks.set(step, outcome);
      bound(this.tasks);
    }
    void outcome.then((ended) => this.answer(frame, ended));
  }

  /** The ids of the requests whose commands run now. */
  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** From now on new requests are answered `unavailable`; running ones go on. */
  drain(): void {
    this.draining = true;
  }

  /** Resolves once no command runs. */
  settled(): Promise<void> {
    return this.running.size === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  /** Aborts every running command (their signal fires) and answers them `failed`. */
  abortAll(): void {
    for (const finish of [...this.running.values()])
      finish({ ok: false, code: 'failed', message: 'the agent stopped before the command finished' });
  }

  /** The control plane stopped request `id`'s task: its command is aborted (its signal fires) and answered `failed`. */
  cancel(id: string): void {
    const finish = this.running.get(id);
    if (finish === undefined) return this.options.logger.info('cancel of a request that is not running: nothing to stop', { id });
    finish({ ok: false, code: 'failed', message: 'stopped by the control plane' });
  }

  private start(frame: RequestFrame): Promise<Outcome> {
    if (this.draining) return Promise.resolve({ ok: false, code: 'unavailable', message: 'the agent is shutting down' });
    const checked = parseCommandRequest(frame);
    if (!checked.ok) return Promise.resolve({ ok: false, code: checked.code, message: checked.message });
    return this.run(frame, checked.request);
  }

  private run(frame: RequestFrame, request: CommandRequest): Promise<Outcome> {
    const { handlers, emit, logger, logFlushMs } = this.options;
    const controller = new AbortController();
    const log = new RequestLog(frame.id, emit, logFlushMs);
    logger.info('command started', { id: frame.id, command: frame.command, upid: frame.upid });
    return new Promise((resolve) => {
      const finish = (outcome: Outcome) => {
        if (this.running.get(frame.id) !== finish) return;
        this.running.delete(frame.id);
        clearTimeout(timer);
        // Also after success: whatever the handler left running is killed.
        controller.abort();
        log.close();
        if (this.running.size === 0) for (const wake of this.idle.splice(0)) wake();
        resolve(outcome);
      };
      // The answer goes out at the timeout, whether or not the handler has wound down by then.
      const timer = setTimeout(
        () => finish({ ok: false, code: 'timeout', message: `${frame.command} did not finish within ${frame.timeoutMs} ms` }),
        frame.timeoutMs,
      );
      this.running.set(frame.id, finish);
      Promise.resolve()
        .then(() => runCommand(handlers, request, { signal: controller.signal, log: (line) => log.add(line) }))
        .then(
          (result) => finish({ ok: true, result }),
          (error: unknown) => finish(failureOf(frame.command, error)),
        );
    });
  }

  private answer(frame: RequestFrame, outcome: Outcome): void {
    if (!outcome.ok) return this.fail(frame, outcome.code, outcome.message);
    try {
      // A result that is not JSON (undefined, NaN) is refused by the outbox's check.
      this.options.emit({ type: 'result', id: frame.id, result: outcome.result as ResultFrame['result'] });
    } catch (error) {
      return this.fail(frame, 'failed', `${frame.command} returned a result that cannot be sent: ${(error as Error).message}`);
    }
    this.options.logger.info('command succeeded', { id: frame.id, command: frame.command });
  }

  private fail(frame: RequestFrame, code: FailureCode, message: string): void {
    this.options.emit({ type: 'failure', id: frame.id, code, message });
    this.options.logger.warn('command failed', { id: frame.id, command: frame.command, code, message });
  }
}

function failureOf(command: string, error: unknown): Outcome {
  const text = error instanceof Error ? error.message : String(error);
  const message = text === '' ? `${command} failed` : text;
  return { ok: false, code: error instanceof CommandFailure ? error.code : 'failed', message };
}

/** Keeps this session's remembered ids bounded: beyond REMEMBERED the oldest is forgotten. */
function bound<K>(seen: { readonly size: number; keys(): IterableIterator<K>; delete(key: K): boolean }): void {
  if (seen.size > REMEMBERED) seen.delete(seen.keys().next().value as K);
}
