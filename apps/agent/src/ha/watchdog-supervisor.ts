import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WatchdogOrders } from '../drivers/fence-orders.js';
import type { GuestDriver } from '../drivers/guest-driver.js';
import { guestLabel } from '../drivers/guest-messages.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../logging/logger.js';
import type { LeaseGuest } from './ha-lease.js';
import { runningWatchdog, watchdogArguments, watchdogLogFile } from './watchdog-pid-file.js';

/** How long a new watchdog may take to arm (its pid file) before the old one is stopped. */
const ARM_TIMEOUT_MS = 10_000;
const POLL_MS = 20;
/** How long the driver may take to tell how to kill one guest. */
const ORDER_TIMEOUT_MS = 10_000;

export interface WatchdogSupervisorOptions {
  readonly host: Host;
  readonly driver: Pick<GuestDriver, 'fenceOrder'>;
  readonly logger: Logger;
  /** The built fence-watchdog-main.js. */
  readonly script: string;
  /** The HA lease's monotonic clock in ms (default `performance.now`), whose deadlines are converted to CLOCK_MONOTONIC ns. */
  readonly now?: () => number;
}

/**
 * The agent's side of the fence watchdog (fence-watchdog-main.ts, docs/agents.md "The HA lease"):
 * on every renewed lease it tells the watchdog the deadline and how to kill each HA guest, as the
 * driver computes it; it starts the watchdog (its own process group, its output in
 * /var/log/corral/fence-watchdog.log) when none of its own runs.
 *
 * Handover: a watchdog left by an earlier agent process keeps guarding the earlier lease until this
 * agent's first lease. Then, with guests, this agent's watchdog is started and armed FIRST, and
 * only then is the old one sent SIGTERM (which ends it without fencing); without guests the old one
 * is stopped at once. An agent that never gets a lease leaves the old watchdog to fence at the old
 * deadline, which is right: the control plane's lease runs out after it.
 */
export class WatchdogSupervisor {
  private readonly now: () => number;
  private child: ChildProcess | undefined;
  /** The earlier agent's watchdog: null until the first lease looked for it. */
  private previous: number | undefined | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** The last lease told, for `refresh()`. */
  private last: { readonly deadlineNs: bigint; readonly guests: readonly LeaseGuest[] } | undefined;

  constructor(private readonly options: WatchdogSupervisorOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** The pid of this agent's watchdog while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A lease was granted: `deadline` on the lease's clock, undefined with no guests (disarm). Applied in order. */
  update(deadline: number | undefined, guests: readonly LeaseGuest[]): void {
    const deadlineNs = deadline === undefined ? 0n : process.hrtime.bigint() + BigInt(Math.round((deadline - this.now()) * 1e6));
    this.last = { deadlineNs, guests };
    this.enqueue(deadlineNs, guests);
  }

  /**
   * The guests' processes may have changed (a guest command ended: a start, a reboot): the running
   * watchdog is told the current orders for the same deadline, so that a guest started between two
   * leases is covered before the next one.
   */
  refresh(): void {
    if (this.last === undefined || this.last.guests.length === 0 || this.child === undefined) return;
    this.enqueue(this.last.deadlineNs, this.last.guests);
  }

  private enqueue(deadlineNs: bigint, guests: readonly LeaseGuest[]): void {
    this.chain = this.chain
      .then(() => this.apply(deadlineNs, guests))
      .catch((error: unknown) => this.options.logger.error('fence watchdog: could not update it', { error }));
  }

  /** Resolves once every update so far is applied. */
  settled(): Promise<void> {
    return this.chain;
  }

  private async apply(deadlineNs: bigint, guests: readonly LeaseGuest[]): Promise<void> {
    if (this.previous === null) this.previous = await runningWatchdog(this.options.host);
    if (guests.length === 0) {
      if (this.child !== undefined) this.send(this.child, { deadlineNs: '0', guests: [] });
      return this.stopPrevious();
    }
    const orders: WatchdogOrders = { deadlineNs: String(deadlineNs), guests: await Promise.all(guests.map((guest) => this.fenced(guest))) };
    const running = this.child;
    if (running !== undefined) return this.send(running, orders);
    const child = this.start();
    this.send(child, orders);
    if (await this.armed(child)) return this.stopPrevious();
    this.options.logger.error('fence watchdog: the new watchdog did not arm; the old one (if any) keeps its deadline', { pid: child.pid });
  }

  private async fenced(guest: LeaseGuest): Promise<WatchdogOrders['guests'][number]> {
    const label = guestLabel(guest.type, guest.vmid);
    try {
      const order = await this.options.driver.fenceOrder(guest.type, guest.vmid, AbortSignal.timeout(ORDER_TIMEOUT_MS));
      return order === undefined ? { label } : { label, order };
    } catch (error) {
      this.options.logger.warn(`fence watchdog: could not tell how to kill ${label}`, { error });
      return { label };
    }
  }

  private start(): ChildProcess {
    const { host, script, logger } = this.options;
    const logFile = watchdogLogFile(host);
    mkdirSync(dirname(logFile), { recursive: true });
    const log = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [script, ...watchdogArguments(host)], { detached: true, stdio: ['pipe', log, log] });
    } finally {
      closeSync(log);
    }
    child.unref();
    child.stdin?.on('error', () => undefined); // it exited: the 'exit' below says so
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      logger.info('fence watchdog exited', { pid: child.pid, code, signal });
    });
    logger.info('fence watchdog started', { pid: child.pid, log: logFile });
    return child;
  }

  private send(child: ChildProcess, orders: WatchdogOrders): void {
    child.stdin?.write(`${JSON.stringify(orders)}\n`);
  }

  /** Whether the watchdog armed: its pid file names it. */
  private async armed(child: ChildProcess): Promise<boolean> {
    for (const end = Date.now() + ARM_TIMEOUT_MS; Date.now() < end && this.child === child; await sleep(POLL_MS)) {
      if ((await runningWatchdog(this.options.host)) === child.pid) return true;
    }
    return false;
  }

  private stopPrevious(): void {
    const pid = this.previous;
    this.previous = undefined;
    if (pid === undefined || pid === null || pid === this.child?.pid) return;
    try {
      process.kill(pid, 'SIGTERM');
      this.options.logger.info("fence watchdog: stopped the earlier agent's watchdog: this agent's lease covers the node now", { pid });
    } catch {
      // gone meanwhile
    }
  }
}
