import { batchBytes } from './metric-server-settings.js';
import { send, SendFailed, type Destination } from './metric-transports.js';

/** The most a server's outbox keeps while it cannot send: beyond it, the oldest lines are dropped. */
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** What a flush came to: sent (all pending lines went), failed (with why; the lines wait for the next), or nothing to send. */
export type FlushOutcome = { readonly sent: true } | { readonly sent: false; readonly error: string } | null;

/**
 * The lines waiting for one metric server, and their sending: one flush at a time, in batches of
 * the size its transport takes (PVE's); what could not be sent is kept, within MAX_PENDING_BYTES,
 * and tried again at the next flush, so a server that was down gets the readings it missed.
 */
export class MetricOutbox {
  private pending: string[] = [];
  private pendingBytes = 0;
  private flushing: Promise<FlushOutcome> | null = null;
  /** Lines dropped to stay within the bound, since the outbox was made. */
  dropped = 0;

  constructor(public destination: Destination) {}

  queue(lines: readonly string[]): void {
    for (const line of lines) {
      this.pending.push(line);
      this.pendingBytes += Buffer.byteLength(line);
    }
    this.trim();
  }

  get pendingLines(): number {
    return this.pending.length;
  }

  /** Sends what is pending; a flush already under way is awaited instead of starting another. */
  flush(): Promise<FlushOutcome> {
    this.flushing ??= this.sendPending().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async sendPending(): Promise<FlushOutcome> {
    if (this.pending.length === 0) return null;
    const lines = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const batches = batched(lines, batchBytes(this.destination.type, this.destination.settings));
    try {
      await send(
        this.destination,
        batches.map((batch) => batch.text),
      );
      return { sent: true };
    } catch (error) {
      const sent = error instanceof SendFailed ? error.sent : 0;
      const unsent = lines.slice(batches[sent]?.from ?? lines.length);
      // What came meanwhile goes after what was not sent, so the order stays the readings' order.
      this.pending = [...unsent, ...this.pending];
      this.pendingBytes = this.pending.reduce((total, line) => total + Buffer.byteLength(line), 0);
      this.trim();
      return { sent: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private trim(): void {
    let cut = 0;
    for (const line of this.pending) {
      if (this.pendingBytes <= MAX_PENDING_BYTES) break;
      this.pendingBytes -= Buffer.byteLength(line);
      cut++;
    }
    if (cut === 0) return;
    this.pending = this.pending.slice(cut);
    this.dropped += cut;
  }
}

/** Lines joined into batches of at most `size` bytes each (a longer line alone), with the index of each batch's first line. */
export function batched(lines: readonly string[], size: number): { text: string; from: number }[] {
  const batches: { text: string; from: number }[] = [];
  let text = '';
  let bytes = 0;
  let from = 0;
  lines.forEach((line, index) => {
    const length = Buffer.byteLength(line);
    if (bytes > 0 && bytes + length > size) {
      batches.push({ text, from });
      text = '';
      bytes = 0;
      from = index;
    }
    text += line;
    bytes += length;
  });
  if (bytes > 0) batches.push({ text, from });
  return batches;
}
