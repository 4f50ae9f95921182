import { connect, type Socket } from 'node:net';

/*
 * A client of QEMU's machine protocol (QMP) on its unix socket: JSON objects one per line, a
 * greeting first, `qmp_capabilities` to leave negotiation, then commands answered in order.
 * Events (`{"event": ...}`) arrive between the answers at any time and are not ours to wait for.
 */

export interface QmpOptions {
  /** Aborting it closes the connection and fails what waits. */
  readonly signal: AbortSignal;
  /** Each step (the greeting, each command's answer) fails after this long. */
  readonly timeoutMs: number;
}

/** QEMU's refusal of a command: its error class (`GenericError`, `CommandNotFound`) and description. */
export class QmpError extends Error {
  override name = 'QmpError';

  constructor(
    readonly qmpClass: string,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One QMP connection. QEMU serves one client at a time on a socket: keep a connection only for
 * the commands at hand and `close()` it, so that the next caller gets its turn.
 */
export class QmpClient {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffer = '';
  private greeted: Pending | undefined;
  private closedWith: Error | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly options: QmpOptions,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', (error) => this.fail(new Error(`QMP connection failed: ${error.message}`)));
    socket.on('close', () => this.fail(new Error('QEMU closed the QMP connection')));
  }

  /** Connects, reads the greeting and negotiates capabilities; rejects when QEMU does not answer in time. */
  static async connect(path: string, options: QmpOptions): Promise<QmpClient> {
    const client = new QmpClient(connect(path), options);
    try {
      await client.waitFor('the QMP greeting', new Promise((resolve, reject) => (client.greeted = { resolve, reject })));
      await client.execute('qmp_capabilities');
      return client;
    } catch (error) {
      client.close();
      throw error;
    }
  }

  /** Runs one command and resolves with its `return` value; rejects with a QmpError when QEMU refuses it. */
  execute(command: string, args?: Readonly<Record<string, unknown>>): Promise<unknown> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.socket.write(`${JSON.stringify({ execute: command, ...(args === undefined ? {} : { arguments: args }), id })}\n`);
    return this.waitFor(`QMP ${command}`, answer).finally(() => this.pending.delete(id));
  }

  close(): void {
    this.fail(new Error('the QMP connection was closed'));
  }

  private waitFor<T>(what: string, answer: Promise<T>): Promise<T> {
    const { signal, timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} got no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error(`${what} was cancelled`));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([answer, stopped]).finally(() => {
      clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    });
  }

  private receive(chunk: string): void {
    const lines = (this.buffer + chunk).split('\n');
    this.buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return this.fail(new Error(`QEMU sent something that is not QMP: ${line.slice(0, 200)}`));
      }
      this.dispatch(message);
    }
  }

  private dispatch(message: Record<string, unknown>): void {
    if ('QMP' in message) {
      this.greeted?.resolve(message);
      this.greeted = undefined;
      return;
    }
    const waiting = typeof message['id'] === 'number' ? this.pending.get(message['id']) : undefined;
    if (waiting === undefined) return; // an event, or the answer to a command that timed out
    if ('return' in message) return waiting.resolve(message['return']);
    const error = (message['error'] ?? {}) as { class?: unknown; desc?: unknown };
    waiting.reject(new QmpError(String(error.class ?? 'GenericError'), String(error.desc ?? 'QEMU refused the command')));
  }

  /** Ends the connection once: what still waits fails with `error`. */
  private fail(error: Error): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = error;
    this.socket.destroy();
    this.greeted?.reject(error);
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
