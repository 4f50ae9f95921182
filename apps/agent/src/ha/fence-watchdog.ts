import type { FencedGuest, FenceOrder, WatchdogOrders } from '../drivers/fence-orders.js';
import type { Logger } from '../logging/logger.js';

export interface FenceWatchdogOptions {
  readonly logger: Logger;
  /** Carries out one order and says what happened (fence-kill.ts); never throws. */
  readonly carryOut: (order: FenceOrder) => Promise<string>;
  /** The watchdog is done: disarmed, stopped, or fenced. */
  readonly exit: (code: number) => void;
  /** CLOCK_MONOTONIC in ns (default `process.hrtime.bigint`), the agent's clock too. */
  readonly now?: () => bigint;
}

/**
 * The fence watchdog's state (docs/agents.md "The HA lease"): the last deadline and guests the agent
 * told it, and a timer that fences at that deadline WHETHER OR NOT the agent still lives. It is
 * the agent's self-fence again, in a process that outlives the agent: a crash, an OOM kill, a
 * `kill -9` or a `systemctl stop` of the agent leaves it running with what it was last told.
 *
 * - `tell`: a newer lease (no guests: disarmed, it exits without fencing).
 * - `agentGone`: the agent's pipe closed. Changes nothing: the deadline stands.
 * - `stop` (SIGTERM, from the agent that holds a lease of its own now): exits without fencing.
 * - At the deadline: every guest's order carried out at once, each result logged, then exit.
 */
export class FenceWatchdog {
  private readonly now: () => bigint;
  private orders: WatchdogOrders | undefined;
  private timer: NodeJS.Timeout | undefined;
  private done = false;

  constructor(private readonly options: FenceWatchdogOptions) {
    this.now = options.now ?? (() => process.hrtime.bigint());
  }

  /** Whether it is armed (told a deadline with guests, not yet fenced or stopped). */
  get armed(): boolean {
    return this.orders !== undefined && !this.done;
  }

  tell(orders: WatchdogOrders): void {
    if (this.done) return;
    if (orders.guests.length === 0) return this.finish('disarmed: the HA lease lists no guests', 0);
    const first = this.orders === undefined;
    this.orders = orders;
    if (first) this.options.logger.info('armed', { inMs: this.remainingMs(), guests: orders.guests.map((guest) => guest.label) });
    this.schedule();
  }

  agentGone(): void {
    if (this.done) return;
    if (this.orders === undefined) return this.finish('the agent went before it armed the watchdog', 0);
    this.options.logger.warn(`the agent is gone: fencing at its lease's deadline unless a new agent takes over`, {
      inMs: this.remainingMs(),
      guests: this.orders.guests.map((guest) => guest.label),
    });
  }

  stop(): void {
    this.finish('stopped: another agent holds the lease now (or this one disarmed)', 0);
  }

  private remainingMs(): number {
    return this.orders === undefined ? 0 : Math.max(0, Number((BigInt(this.orders.deadlineNs) - this.now()) / 1_000_000n));
  }

  private schedule(): void {
    clearTimeout(this.timer);
    // A timer may fire early by a fraction of a ms on another clock: checked again, never fenced before the deadline.
    const due = () =>
      this.orders !== undefined && this.now() >= BigInt(this.orders.deadlineNs) ? void this.fence(this.orders.guests) : this.schedule();
    this.timer = setTimeout(due, this.remainingMs() + 1);
  }

  private async fence(guests: readonly FencedGuest[]): Promise<void> {
    this.done = true;
    this.timer = undefined;
    const { logger, carryOut } = this.options;
    logger.error(
      `fence watchdog: HA lease not renewed by the deadline; stopping HA guests ${guests.map((guest) => guest.label).join(', ')}`,
    );
    await Promise.all(
      guests.map(async ({ label, order }) => {
        if (order === undefined)
          return logger.warn(`fence watchdog: ${label}: nothing to stop (not running when last told, or its driver has no fence order)`, {
            guest: label,
          });
        logger.warn(`fence watchdog: ${label}: ${await carryOut(order)}`, { guest: label });
      }),
    );
    this.options.exit(0);
  }

  private finish(why: string, code: number): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.options.logger.info(why);
    this.options.exit(code);
  }
}
