import type { AgentEventKind, GuestRuntime } from '@corral/protocol';
import type { OutgoingFrame } from '../connection/outbox.js';
import type { GuestDriver } from '../drivers/guest-driver.js';
import type { Logger } from '../logging/logger.js';

/** Without a change of run state, figures (uptime, cpu, mem, traffic) are reported again at most this often. */
export const FIGURES_EVERY_MS = 10_000;
/** A read that takes longer is abandoned (the next one tries again). */
const READ_TIMEOUT_MS = 30_000;

/** Sends a numbered frame; returns its `seq`. */
type Emit = (frame: OutgoingFrame) => number;

/**
 * Reports the guests' run state, the agent's truth: the driver's `list()` is read every interval
 * while a connection is live, and after every guest command (`refresh()`). A `report` of kind
 * `runtime` goes out at once when a guest appeared, left, or changed its status or pid, else at most
 * every `FIGURES_EVERY_MS` when only its figures did (they change at every read); a new connection
 * gets one at once, as it may reach another replica. Each start and stop seen between two reads is
 * also an `event` (vm-start, vm-stop, ct-start, ct-stop), sent before the report, whoever caused it:
 * a guest powered off from inside is reported like one stopped through the API. Paused counts as
 * started.
 *
 * To a control plane that accepts them (`changes`), the reports between two whole ones list only
 * the guests that changed since the report before (and the ones gone): a command on a node of ten
 * thousand guests sends one entry, not ten thousand. The figures go in a whole report.
 *
 * The first read after the agent starts is the baseline: guests found running then were started
 * before, and get no event. Reads are made one at a time, and a read asked for while another waits
 * to begin shares it (it begins after every such call); the baseline is kept across connections, so
 * what changed while the agent was disconnected is reported after the reconnect.
 */
export class RuntimeReports {
  private timer: NodeJS.Timeout | undefined;
  private emit: Emit | undefined;
  private changes = false;
  /** The last read, by vmid; undefined until the baseline. */
  private last: Map<number, GuestRuntime> | undefined;
  /** What the control plane holds from the reports sent on this connection: the guests by vmid, the making, the last report's `seq`. */
  private sent: { guests: Map<number, GuestRuntime>; making: string; seq: number } | undefined;
  private lastWholeAt = 0;
  private queue: Promise<void> = Promise.resolve();
  /** A read asked for that has not begun: callers meanwhile share it. */
  private waiting: Promise<void> | undefined;
  /** The guests whose making (a create, clone or restore) runs now, reported as `making`. */
  private readonly makingNow = new Set<number>();

  constructor(
    private readonly driver: Pick<GuestDriver, 'list'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Reads every `intervalMs` from now on, frames going to `emit`; one whole report goes out at once.
   * With `changes`, the control plane applies reports of changes.
   */
  start(intervalMs: number, emit: Emit, options: { readonly changes: boolean } = { changes: false }): void {
    this.stop();
    this.emit = emit;
    this.changes = options.changes;
    this.sent = undefined;
    void this.read();
    this.timer = setInterval(() => void this.read(), intervalMs);
  }

  /** No more reads on a timer; `refresh()` still reads (its frames wait in the outbox for the next connection). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the driver's list (a read that begins after this call) and sends what changed; never throws. */
  refresh(): Promise<void> {
    return this.read();
  }

  /**
   * Runs the making of guest `vmid` (its create, clone or restore): reports say so while it runs,
   * so that the control plane does not take a guest not listed yet for one never made; the list is
   * read again once it ended, whatever the outcome.
   */
  async making<T>(vmid: number, operation: () => Promise<T>): Promise<T> {
    this.makingNow.add(vmid);
    try {
      return await operation();
    } finally {
      this.makingNow.delete(vmid);
      await this.refresh();
    }
  }

  private read(): Promise<void> {
    if (this.waiting !== undefined) return this.waiting;
    const next = this.queue.then(() => {
      this.waiting = undefined;
      return this.readOnce();
    });
    this.waiting = next;
    this.queue = next;
    return next;
  }

  private async readOnce(): Promise<void> {
    try {
      this.compare(await this.driver.list(AbortSignal.timeout(READ_TIMEOUT_MS)));
    } catch (error) {
      this.logger.warn("cannot report the guests' run state", { error });
    }
  }

  private compare(guests: readonly GuestRuntime[]): void {
    const read = new Map(guests.map((guest) => [guest.vmid, guest]));
    const previous = this.last;
    this.last = read;
    const emit = this.emit;
    // Nobody to tell yet: this read is the baseline.
    if (emit === undefined) return;
    const now = Date.now();
    // The events before the report that shows their outcome: the control plane records a change it
    // finds in a report without its event as missed (reconciled), which must not happen to one whose event follows.
    if (previous !== undefined) {
      const timestamp = new Date(now).toISOString();
      for (const [event, vmid] of transitions(previous, read)) emit({ type: 'event', event, vmid, timestamp });
    }
    const makingList = [...this.makingNow].sort((a, b) => a - b);
    const making = makingList.join(',');
    const withMaking = makingList.length > 0 ? { making: makingList } : {};
    const sent = this.sent;
    const { changed, gone, figures } = sent === undefined ? { changed: [], gone: [], figures: true } : differences(sent.guests, read);
    const stateChanged = sent === undefined || changed.length > 0 || gone.length > 0 || making !== sent.making;
    const whole = sent === undefined || ((stateChanged || figures) && now - this.lastWholeAt >= FIGURES_EVERY_MS);
    if (whole || (stateChanged && !this.changes)) {
      const sorted = [...guests].sort((a, b) => a.vmid - b.vmid);
      const seq = emit({ type: 'report', payload: { kind: 'runtime', guests: sorted, ...withMaking } });
      this.sent = { guests: new Map(read), making, seq };
      this.lastWholeAt = now;
    } else if (stateChanged) {
      const seq = emit({ type: 'report', payload: { kind: 'runtime', guests: changed, gone, since: sent.seq, ...withMaking } });
      for (const vmid of gone) sent.guests.delete(vmid);
      for (const guest of changed) sent.guests.set(guest.vmid, guest);
      this.sent = { guests: sent.guests, making, seq };
    }
  }
}

/** The fields of a guest that change while it runs, without a change of its run state. */
const FIGURES = ['uptime', 'cpu', 'mem', 'netin', 'netout', 'diskread', 'diskwrite'] as const;

/**
 * What `read` changed against what the control plane holds: the guests new or with another type,
 * status or pid; the vmids gone; whether any figures differ.
 */
function differences(
  held: ReadonlyMap<number, GuestRuntime>,
  read: ReadonlyMap<number, GuestRuntime>,
): { changed: GuestRuntime[]; gone: number[]; figures: boolean } {
  const changed: GuestRuntime[] = [];
  let figures = false;
  let kept = 0;
  for (const guest of read.values()) {
    const before = held.get(guest.vmid);
    if (before !== undefined) kept += 1;
    if (before === undefined || before.type !== guest.type || before.status !== guest.status || before.pid !== guest.pid)
      changed.push(guest);
    else if (FIGURES.some((field) => before[field] !== guest[field])) figures = true;
  }
  const gone = kept === held.size ? [] : [...held.keys()].filter((vmid) => !read.has(vmid));
  return { changed, gone, figures };
}

/**
 * A guest runs when it is running or paused; one whose process changed between two reads (another
 * pid, or another type under its vmid) was stopped and started again.
 */
function transitions(before: ReadonlyMap<number, GuestRuntime>, after: ReadonlyMap<number, GuestRuntime>): [AgentEventKind, number][] {
  const events: [AgentEventKind, number][] = [];
  const change = (was: GuestRuntime | undefined, is: GuestRuntime | undefined, vmid: number) => {
    const wasUp = was !== undefined && was.status !== 'stopped';
    const isUp = is !== undefined && is.status !== 'stopped';
    const same = was !== undefined && is !== undefined && was.type === is.type && was.pid === is.pid;
    if (wasUp && (!isUp || !same)) events.push([was.type === 'qemu' ? 'vm-stop' : 'ct-stop', vmid]);
    if (isUp && (!wasUp || !same)) events.push([is.type === 'qemu' ? 'vm-start' : 'ct-start', vmid]);
  };
  let kept = 0;
  for (const [vmid, is] of after) {
    const was = before.get(vmid);
    if (was !== undefined) kept += 1;
    change(was, is, vmid);
  }
  if (kept < before.size) for (const [vmid, was] of before) if (!after.has(vmid)) change(was, undefined, vmid);
  return events;
}
