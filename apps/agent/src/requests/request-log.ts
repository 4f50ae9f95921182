import type { LogLine } from '@corral/protocol';
import type { OutgoingFrame } from '../connection/outbox.js';

/** At most this many lines wait for the next `log` frame. */
const MAX_BATCH = 200;

/**
 * The output lines of one running request, numbered from 1 (as PVE numbers a task log) and sent
 * in batches: a `log` frame after `flushMs`, or at once when a batch is full. Closing sends what is
 * left, so every line goes out before the request's answer; lines after that are dropped.
 */
export class RequestLog {
  private count = 0;
  private batch: LogLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly id: string,
    private readonly emit: (frame: OutgoingFrame) => void,
    private readonly flushMs: number,
  ) {}

  /** One line of output; a text with line breaks is several lines (a frame's line holds none). */
  add(text: string): void {
    if (this.closed) return;
    for (const line of text.replace(/\r?\n$/, '').split(/\r\n|\r|\n/)) this.batch.push({ n: ++this.count, text: line });
    if (this.batch.length >= MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.batch.length === 0) return;
    this.emit({ type: 'log', id: this.id, lines: this.batch });
    this.batch = [];
  }
}
