import type { GuestType, HeartbeatFrame, LeaseFrame } from '@corral/protocol';
import type { Logger } from '../logging/logger.js';

/** The agent's fence comes this long before the lease runs out on the control-plane side (docs/ha.md). */
export const FENCE_MARGIN_MS = 5_000;
/** Heartbeats whose send time is kept: a lease answers one of the last few (2 s apart), never one 2 min old. */
export const REMEMBERED_HEARTBEATS = 64;

export interface LeaseGuest {
  readonly type: GuestType;
  readonly vmid: number;
}

/** What the lease does when it runs out, and when a newer one arrives after that. */
export interface Fence {
  /** The lease ran out: stop `guests` at once, and start none of them until `lift()`. `renewedAt`: when the last lease arrived. */
  fence(guests: readonly LeaseGuest[], renewedAt: Date): void;
  /** A newer lease arrived: the fenced guests may run again. */
  lift(): void;
  /** The guests the lease now covers (every lease taken, and none once it ran out): only those may be started as HA guests. */
  cover(guests: readonly LeaseGuest[]): void;
}

export interface HaLeaseOptions {
  readonly fence: Fence;
  readonly logger: Logger;
  /** A monotonic clock in ms (default `performance.now`): a wall-clock step must not move a deadline. */
  readonly now?: () => number;
  /**
   * Every lease taken: its deadline on `now`'s clock (undefined when it lists no guests) and its
   * guests, for the fence watchdog (watchdog-supervisor.ts), which fences even if this process dies.
   */
  readonly onRenewed?: (deadline: number | undefined, guests: readonly LeaseGuest[]) => void;
}

interface Held {
  readonly upTo: number;
  readonly guests: readonly LeaseGuest[];
  /** Wall-clock time of the lease's arrival, for the log only. */
  readonly renewedAt: Date;
}

/**
 * The node's HA lease as the agent holds it (libs/protocol `LeaseFrame`, docs/ha.md): the agent
 * numbers its heartbeats and remembers when it sent each; a lease names the heartbeat after which
 * the control plane wrote it, and lasts `ttlMs` from there. The agent's deadline is the SEND time of
 * that heartbeat + ttlMs - FENCE_MARGIN_MS, which comes before the control plane's `lease_until`
 * (written after that heartbeat arrived) by at least the margin, whatever the network's delays.
 *
 * The lease belongs to the agent process, not to a connection: it keeps running while the
 * websocket is down or reconnecting, and its timer is the only thing the fence waits for.
 * When it runs out with HA guests listed, the fence stops them; the agent then stays fenced (no
 * timer) until a lease for a newer heartbeat arrives. A lease with no guests disarms the timer.
 */
export class HaLease {
  private readonly now: () => number;
  private lastN = 0;
  /** Monotonic send times of the last REMEMBERED_HEARTBEATS heartbeats, by `n`. */
  private readonly sentAt = new Map<number, number>();
  private held: Held | undefined;
  private timer: NodeJS.Timeout | undefined;
  private fencedAt: number | undefined;

  constructor(private readonly options: HaLeaseOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether the lease ran out and no newer one arrived since. */
  get fenced(): boolean {
    return this.fencedAt !== undefined;
  }

  /** The next heartbeat, numbered; its send time counts from this call, so call it right before sending. */
  heartbeat(): HeartbeatFrame {
    this.lastN += 1;
    this.sentAt.set(this.lastN, this.now());
    this.sentAt.delete(this.lastN - REMEMBERED_HEARTBEATS);
    return { type: 'heartbeat', n: this.lastN };
  }

  /** A `lease` frame arrived. */
  grant(lease: LeaseFrame): void {
    const { logger, fence } = this.options;
    const sentAt = this.sentAt.get(lease.upTo);
    if (sentAt === undefined) {
      // Not ours (a lease for another process of this node) or too old to count from: the next one will do.
      logger.warn('ignoring an HA lease for a heartbeat this agent does not remember', { upTo: lease.upTo, lastHeartbeat: this.lastN });
      return;
    }
    if (this.held !== undefined && lease.upTo < this.held.upTo) return;
    if (this.fencedAt !== undefined) {
      if (this.held !== undefined && lease.upTo <= this.held.upTo) return;
      this.fencedAt = undefined;
      logger.warn('HA lease renewed: the self-fence is lifted', { upTo: lease.upTo });
      fence.lift();
    }
    this.held = { upTo: lease.upTo, guests: lease.guests, renewedAt: new Date() };
    fence.cover(lease.guests);
    clearTimeout(this.timer);
    this.timer = undefined;
    if (lease.guests.length === 0) return this.options.onRenewed?.(undefined, []);
    const deadline = sentAt + lease.ttlMs - FENCE_MARGIN_MS;
    this.timer = setTimeout(() => this.expire(), Math.max(0, deadline - this.now()));
    this.options.onRenewed?.(deadline, lease.guests);
  }

  /**
   * The agent exits: the timer goes with the process. The fence watchdog it told (`onRenewed`)
   * stays and fences at the same deadline unless a new agent process takes the lease over.
   */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private expire(): void {
    this.timer = undefined;
    const held = this.held;
    if (held === undefined) return;
    this.fencedAt = this.now();
    this.options.fence.fence(held.guests, held.renewedAt);
  }
}
