import { randomInt } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { CommandFailure } from '../../../host/command-failure.js';
import { GUEST_AGENT_NOT_RUNNING as QGA_NOT_RUNNING } from '../../guest-messages.js';

/*
 * A client of the QEMU guest agent (QGA) on the host end of a VM's virtio-serial channel: JSON
 * objects one per line, no greeting. Whatever a previous client left half sent or unread may still
 * be in the channel, so each exchange begins with `guest-sync-delimited`: a 0xFF byte resets the
 * guest agent's parser, the agent answers the sync with 0xFF then `{"return": <id>}`, and what came
 * before that is discarded. A VM without a guest agent running never answers: the sync times out.
 */

/** QGA's commands that send no reply when they succeed. */
const NO_REPLY = new Set(['guest-shutdown', 'guest-suspend-disk', 'guest-suspend-ram', 'guest-suspend-hybrid']);

export interface QgaOptions {
  readonly signal: AbortSignal;
  /** How long the guest agent gets to answer the sync: short, since a guest without one never does. */
  readonly syncMs: number;
  /** How long the command itself may take. */
  readonly commandMs: number;
}

/**
 * Runs one QGA command over the socket at `path` and resolves with its `return` value (null for
 * the commands QGA does not answer). Rejects `unavailable` with PVE's text when nothing listens or
 * the sync is not answered in time, `timeout` when the command is not, and `failed` with
 * `Agent error: ...` when the guest agent refuses it.
 */
export async function qgaExecute(path: string, command: string, args: unknown, options: QgaOptions): Promise<unknown> {
  const channel = await QgaChannel.open(path, options.signal);
  try {
    const id = randomInt(1, 2 ** 31);
    void channel.write(Buffer.concat([Buffer.from([0xff]), line('guest-sync-delimited', { id })])).catch(() => undefined);
    await channel.reply(
      (reply) => reply.return === id,
      options.syncMs,
      () => new CommandFailure('unavailable', QGA_NOT_RUNNING),
      true,
    );
    // Handed to the kernel before the connection closes: QGA's silence is its answer.
    await channel.write(line(command, args));
    if (NO_REPLY.has(command)) return null;
    const reply = await channel.reply(
      () => true,
      options.commandMs,
      () => new CommandFailure('timeout', `the QEMU guest agent did not answer ${command} within ${options.commandMs / 1000} s`),
    );
    const error = reply.error as { desc?: unknown } | undefined;
    if (error !== undefined)
      throw new CommandFailure('failed', `Agent error: ${typeof error.desc === 'string' ? error.desc : JSON.stringify(error)}`);
    return reply.return ?? null;
  } finally {
    channel.close();
  }
}

function line(command: string, args: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(args === undefined ? { execute: command } : { execute: command, arguments: args })}\n`);
}

type Reply = Record<string, unknown>;

interface Waiter {
  readonly accept: (reply: Reply) => boolean;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
}

/** One connection to the channel, its bytes cut into JSON lines. */
class QgaChannel {
  private pending = Buffer.alloc(0);
  /** Until the sync's 0xFF arrives, what comes is a previous client's and is dropped. */
  private delimited = false;
  private waiter: Waiter | undefined;
  private closedWith: Error | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly signal: AbortSignal,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(new CommandFailure('unavailable', `${QGA_NOT_RUNNING} (${error.message})`)));
    socket.on('close', () => this.fail(new CommandFailure('unavailable', `${QGA_NOT_RUNNING} (the channel closed)`)));
  }

  /** Connects; a socket that is not there (a VM started without the guest agent's channel) is `unavailable`. */
  static open(path: string, signal: AbortSignal): Promise<QgaChannel> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      const failed = (error: Error) => reject(new CommandFailure('unavailable', `${QGA_NOT_RUNNING} (${error.message})`));
      socket.once('error', failed);
      socket.once('connect', () => {
        socket.off('error', failed);
        resolve(new QgaChannel(socket, signal));
      });
    });
  }

  /** Resolves once the bytes are written to the socket. */
  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(bytes, (error) => (error ? reject(error) : resolve())));
  }

  /** The next reply `accept` takes (after the 0xFF when `delimited`); rejects with `timedOut()` after `ms`. */
  reply(accept: (reply: Reply) => boolean, ms: number, timedOut: () => Error, delimited = false): Promise<Reply> {
    if (delimited) this.delimited = false;
    return new Promise((resolve, reject) => {
      if (this.closedWith !== undefined) return reject(this.closedWith);
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', aborted);
        this.waiter = undefined;
      };
      const aborted = () => {
        done();
        reject(this.signal.reason instanceof Error ? this.signal.reason : new CommandFailure('timeout', 'the request was cancelled'));
      };
      const timer = setTimeout(() => {
        done();
        reject(timedOut());
      }, ms);
      this.signal.addEventListener('abort', aborted, { once: true });
      this.waiter = {
        accept,
        resolve: (reply) => {
          done();
          resolve(reply);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      this.drain();
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    this.drain();
  }

  private drain(): void {
    if (!this.delimited) {
      const sentinel = this.pending.indexOf(0xff);
      if (sentinel < 0) {
        this.pending = Buffer.alloc(0);
        return;
      }
      this.pending = this.pending.subarray(sentinel + 1);
      this.delimited = true;
    }
    for (let end = this.pending.indexOf(0x0a); end >= 0 && this.waiter !== undefined; end = this.pending.indexOf(0x0a)) {
      const text = this.pending.subarray(0, end).toString('utf8').trim();
      this.pending = this.pending.subarray(end + 1);
      const reply = parse(text);
      if (reply !== undefined && this.waiter.accept(reply)) this.waiter.resolve(reply);
    }
  }

  private fail(error: Error): void {
    this.closedWith ??= error;
    this.waiter?.reject(error);
  }
}

/** A reply object, or undefined for a line that is none (noise before the sync's answer). */
function parse(text: string): Reply | undefined {
  if (text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Reply) : undefined;
  } catch {
    return undefined;
  }
}
