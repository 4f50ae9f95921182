import type { AgentEventKind, GuestRuntime } from '@corral/protocol';
import type { OutgoingFrame } from '../connection/outbox.js';
import type { GuestDriver } from '../drivers/guest-driver.js';
import type { Logger } from '../logging/logger.js';

/** Without a change of run state, figures (uptime, cpu, mem) are reported again at most this often. */
export const FIGURES_EVERY_MS = 10_000;
/** A read that takes longer is abandoned (the next one tries again). */
const READ_TIMEOUT_MS = 30_000;

/**
 * Reports the guests' run state, the agent's truth: the driver's `list()` is
 * read every interval while a connection is live, and after every guest command (`refresh()`).
 * A `report` of kind `runtime` goes out at once when a guest's status or pid changed, else at most
 * every `FIGURES_EVERY_MS` when only its figures did (they change at every read); a new connection
 * gets one at once, as it may reach another replica. Each start and stop seen between two reads is
 * also an `event` (vm-start, vm-stop, ct-start, ct-stop), sent before the report, whoever caused it: a guest
 * powered off from inside is reported like one stopped through the API. Paused counts as started.
 *
 * The first read after the agent starts is the baseline: guests found running then were started
 * before, and get no event. Reads are made one at a time, and the baseline is kept across
 * connections, so what changed while the agent was disconnected is reported after the reconnect.
 */
export class RuntimeReports {
  private timer: NodeJS.Timeout | undefined;
  private emit: ((frame: OutgoingFrame) => void) | undefined;
  /** The last read, by `type:vmid`; undefined until the baseline. */
  private last: Map<string, GuestRuntime> | undefined;
  /** The last report sent: its guests' status and pid, all of it, and when. */
  private lastStates: string | undefined;
  private lastText: string | undefined;
  private lastSentAt = 0;
  private reportNext = false;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  /** The guests whose making (a create, clone or restore) runs now, reported as `making`. */
  private readonly makingNow = new Set<number>();

  constructor(
    private readonly driver: Pick<GuestDriver, 'list'>,
    private readonly logger: Logger,
  ) {}

  /** Reads every `intervalMs` from now on, frames going to `emit`; one report goes out at once. */
  start(intervalMs: number, emit: (frame: OutgoingFrame) => void): void {
    this.stop();
    this.emit = emit;
    this.reportNext = true;
    void this.read();
    this.timer = setInterval(() => {
      if (this.queued === 0) void this.read();
    }, intervalMs);
  }

  /** No more reads on a timer; `refresh()` still reads (its frames wait in the outbox for the next connection). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the driver's list now (after a read under way) and sends what changed; never throws. */
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
    this.queued += 1;
    const next = this.queue.then(() => this.readOnce()).finally(() => (this.queued -= 1));
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
    const emit = this.emit;
    const previous = this.last;
    if (emit === undefined) {
      // Nobody to tell yet: this read is the baseline.
      this.last = byKey(guests);
      return;
    }
    const sorted = [...guests].sort((a, b) => a.vmid - b.vmid || a.type.localeCompare(b.type));
    const making = [...this.makingNow].sort((a, b) => a - b);
    const states = `${sorted.map((guest) => `${key(guest)}:${guest.status}:${guest.pid ?? ''}`).join(' ')} making:${making.join(',')}`;
    const text = JSON.stringify(sorted);
    const now = Date.now();
    // The events before the report that shows their outcome: the control plane records a change it
    // finds in a report without its event as missed (reconciled), which must not happen to one whose event follows.
    if (previous !== undefined) {
      const timestamp = new Date(now).toISOString();
      for (const [event, vmid] of transitions(previous, byKey(guests))) emit({ type: 'event', event, vmid, timestamp });
    }
    if (this.reportNext || states !== this.lastStates || (text !== this.lastText && now - this.lastSentAt >= FIGURES_EVERY_MS)) {
      emit({ type: 'report', payload: { kind: 'runtime', guests: sorted, ...(making.length > 0 ? { making } : {}) } });
      this.reportNext = false;
      this.lastStates = states;
      this.lastText = text;
      this.lastSentAt = now;
    }
    this.last = byKey(guests);
  }
}

function key(guest: GuestRuntime): string {
  return `${guest.type}:${guest.vmid}`;
}

function byKey(guests: readonly GuestRuntime[]): Map<string, GuestRuntime> {
  return new Map(guests.map((guest) => [key(guest), guest]));
}

/** A guest runs when it is running or paused; one whose pid changed between two reads was stopped and started again. */
function transitions(before: ReadonlyMap<string, GuestRuntime>, after: ReadonlyMap<string, GuestRuntime>): [AgentEventKind, number][] {
  const events: [AgentEventKind, number][] = [];
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(id);
    const is = after.get(id);
    const guest = is ?? was;
    if (guest === undefined) continue;
    const [start, stop] = guest.type === 'qemu' ? (['vm-start', 'vm-stop'] as const) : (['ct-start', 'ct-stop'] as const);
    const wasUp = was !== undefined && was.status !== 'stopped';
    const isUp = is !== undefined && is.status !== 'stopped';
    if (wasUp && (!isUp || was.pid !== is.pid)) events.push([stop, guest.vmid]);
    if (isUp && (!wasUp || was.pid !== is.pid)) events.push([start, guest.vmid]);
  }
  return events;
}
