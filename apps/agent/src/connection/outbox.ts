import { randomUUID } from 'node:crypto';
import { encodeFrame, type EventFrame, type FailureFrame, type LogFrame, type ReportFrame, type ResultFrame } from '@corral/protocol';

/** The agent frames that carry `seq` and are kept until acknowledged (`AckFrame` in libs/protocol). */
export type NumberedFrame = ResultFrame | FailureFrame | LogFrame | ReportFrame | EventFrame;

type Unnumbered<F> = F extends unknown ? Omit<F, 'seq'> : never;

/** A numbered frame before the outbox gives it its number. */
export type OutgoingFrame = Unnumbered<NumberedFrame>;

/** One numbered frame, encoded once. */
export interface OutboxEntry {
  readonly seq: number;
  readonly text: string;
  /** The kind of a report, which a newer report of that kind replaces. */
  readonly report?: string;
  /** An event or a report: kept on disk until acknowledged (state/outbox-store.ts), as a new agent process can still send it. */
  readonly durable: boolean;
  /** The id of the request a result or failure answers. */
  readonly answers?: string;
}

/**
 * The agent's numbered frames of one session (`hello.session`): numbered from 1 across reconnects,
 * kept until a cumulative `ack` covers them, and handed out again in order after a reconnect. An
 * unacknowledged report is dropped as soon as a newer whole report of its kind exists. `changed` is
 * called whenever the durable entries change (one was added, or acknowledged).
 */
export class Outbox {
  /** This run of the agent process (`hello.session`): the frames' numbers count within it. */
  readonly session = randomUUID();
  private entries: OutboxEntry[] = [];
  private nextSeq = 1;
  private acked = 0;
  private highestSent = 0;
  private emptied: (() => void)[] = [];

  constructor(private readonly changed: () => void = () => undefined) {}

  /**
   * Numbers, validates and keeps a frame. Throws (keeping nothing, using no number) when the frame
   * is invalid: the peer would refuse it and the agent would re-send it after every reconnect.
   */
  add(frame: OutgoingFrame): OutboxEntry {
    const seq = this.nextSeq;
    const text = encodeFrame({ ...frame, seq });
    this.nextSeq += 1;
    const report = frame.type === 'report' ? frame.payload.kind : undefined;
    // A runtime report of changes applies on top of the ones before it: it replaces none, and a new
    // agent process (which starts with a whole report) has no use for it.
    const changes = frame.type === 'report' && frame.payload.kind === 'runtime' && frame.payload.since !== undefined;
    if (report !== undefined && !changes) this.entries = this.entries.filter((entry) => entry.report !== report);
    const durable = frame.type === 'event' || (frame.type === 'report' && !changes);
    const answers = frame.type === 'result' || frame.type === 'failure' ? frame.id : undefined;
    const entry: OutboxEntry = {
      seq,
      text,
      durable,
      ...(report === undefined ? {} : { report }),
      ...(answers === undefined ? {} : { answers }),
    };
    this.entries.push(entry);
    if (durable) this.changed();
    return entry;
  }

  /** Notes that a frame went out on a connection, for the check of acks. */
  sent(entry: OutboxEntry): void {
    this.highestSent = Math.max(this.highestSent, entry.seq);
  }

  /** Forgets every frame up to `upTo`; false (and nothing forgotten) when `upTo` is beyond every frame sent. */
  ack(upTo: number): boolean {
    if (upTo > this.highestSent) return false;
    this.acked = Math.max(this.acked, upTo);
    const forgetsDurable = this.entries.some((entry) => entry.durable && entry.seq <= this.acked);
    this.entries = this.entries.filter((entry) => entry.seq > this.acked);
    if (forgetsDurable) this.changed();
    if (this.entries.length === 0) for (const resolve of this.emptied.splice(0)) resolve();
    return true;
  }

  /** The highest acknowledged number, for `hello.lastAck`; undefined until the first ack. */
  get lastAck(): number | undefined {
    return this.acked === 0 ? undefined : this.acked;
  }

  /** What is not acknowledged yet, in order: re-sent first after every `welcome`. */
  unacknowledged(): readonly OutboxEntry[] {
    return this.entries;
  }

  /** The ids of the requests whose answers are not acknowledged yet. */
  answered(): string[] {
    return this.entries.flatMap((entry) => (entry.answers === undefined ? [] : [entry.answers]));
  }

  /** The unacknowledged events and reports, in order: what a new agent process may still send. */
  durable(): readonly OutboxEntry[] {
    return this.entries.filter((entry) => entry.durable);
  }

  /** Resolves once every frame is acknowledged. */
  whenEmpty(): Promise<void> {
    return this.entries.length === 0 ? Promise.resolve() : new Promise((resolve) => this.emptied.push(resolve));
  }

  /** The highest number sent so far, for messages. */
  get lastSent(): number {
    return this.highestSent;
  }
}
