import { parseAgentFrame } from '@corral/protocol';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readFileIfExists, writeFileAtomically } from '../host/host-files.js';
import type { Logger } from '../logging/logger.js';
import { Outbox, type OutboxEntry, type OutgoingFrame } from '../connection/outbox.js';

/** The file, in the agent's state directory, that holds its unacknowledged events and newest reports. */
export const OUTBOX_FILE = 'outbox.json';
/** By default the file holds at most this many bytes of frames: beyond it the oldest are left out (and logged). */
export const OUTBOX_FILE_MAX_BYTES = 8 * 1024 * 1024;

const StoredOutbox = z.object({
  /** The session that numbered the frames. */
  session: z.string(),
  /** The frames, in order. */
  frames: z.array(z.unknown()),
});

/**
 * The outbox's events and reports on disk, so that a restarted agent still sends what the control
 * plane never acknowledged (docs/agents.md "The outbox on disk"). Every change of the durable
 * entries schedules a write of all of them; writes go one at a time, and the changes made while one
 * waits to begin share it, so a burst of frames costs one write, not one each. A write replaces
 * the file atomically (synced, then renamed). Results, failures and logs are never stored: they
 * answer requests of the process that ran them.
 */
export class OutboxStore {
  private tail: Promise<void> = Promise.resolve();
  private queued = false;
  private truncated = false;

  private constructor(
    private readonly file: string,
    private readonly logger: Logger,
    private readonly maxBytes: number,
  ) {}

  /**
   * A new outbox (a new session) that starts with what the previous process stored: its events,
   * each with the `origin` it was first sent with, and its newest report of each kind. A file that
   * cannot be read as an outbox is logged and set aside (renamed `outbox.json.corrupt-<ms>`); never throws.
   */
  static async open(stateDir: string, logger: Logger, maxBytes = OUTBOX_FILE_MAX_BYTES): Promise<{ outbox: Outbox; store: OutboxStore }> {
    const store = new OutboxStore(join(stateDir, OUTBOX_FILE), logger, maxBytes);
    const outbox: Outbox = new Outbox(() => store.save(outbox));
    const stored = await store.read();
    for (const frame of stored) outbox.add(frame);
    if (stored.length > 0) logger.info('sending again what the previous agent process left unacknowledged', { frames: stored.length });
    return { outbox, store };
  }

  /** Resolves once the writes scheduled so far are done. */
  flushed(): Promise<void> {
    return this.tail;
  }

  private save(outbox: Outbox): void {
    if (this.queued) return;
    this.queued = true;
    this.tail = this.tail.then(async () => {
      this.queued = false;
      try {
        await writeFileAtomically(this.file, this.text(outbox.session, outbox.durable()), 0o600);
      } catch (error) {
        this.logger.warn('cannot store the outbox: a restart now would not send its events again', { error });
      }
    });
  }

  /** The newest frames that fit in `maxBytes`. */
  private text(session: string, entries: readonly OutboxEntry[]): string {
    let bytes = 0;
    let first = entries.length;
    while (first > 0 && bytes + Buffer.byteLength(entries[first - 1]?.text ?? '') <= this.maxBytes) {
      first -= 1;
      bytes += Buffer.byteLength(entries[first]?.text ?? '');
    }
    if (first > 0 && !this.truncated)
      this.logger.warn('the stored outbox is full: its oldest frames are left out', { frames: first, maxBytes: this.maxBytes });
    this.truncated = first > 0;
    // The frames as they were encoded for the wire, not encoded again.
    const frames = entries.slice(first).map((entry) => entry.text);
    return `{"session":${JSON.stringify(session)},"frames":[${frames.join(',')}]}\n`;
  }

  private async read(): Promise<OutgoingFrame[]> {
    let text;
    try {
      text = await readFileIfExists(this.file);
    } catch (error) {
      this.logger.error('cannot read the stored outbox: its frames are not sent again', { error });
      return [];
    }
    if (text === undefined) return [];
    const frames = parseStored(text);
    if (frames !== undefined) return frames;
    const aside = `${this.file}.corrupt-${Date.now()}`;
    this.logger.error('the stored outbox is not valid: set aside, its frames are not sent again', { file: this.file, aside });
    await rename(this.file, aside).catch((error: unknown) => this.logger.error('cannot set the stored outbox aside', { error }));
    return [];
  }
}

/** The stored frames to send again, or undefined when the text is not a stored outbox. */
function parseStored(text: string): OutgoingFrame[] | undefined {
  let stored;
  try {
    stored = StoredOutbox.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!stored.success) return undefined;
  const frames: OutgoingFrame[] = [];
  for (const each of stored.data.frames) {
    const parsed = parseAgentFrame(each);
    if (!parsed.ok) return undefined;
    const frame = parsed.frame;
    if (frame.type === 'event') {
      const { seq, ...rest } = frame;
      frames.push({ ...rest, origin: frame.origin ?? { session: stored.data.session, seq } });
    } else if (frame.type === 'report') {
      const { seq: _seq, ...rest } = frame;
      frames.push(rest);
    } else return undefined;
  }
  return frames;
}
