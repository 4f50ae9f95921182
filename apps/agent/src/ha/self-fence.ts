import type { GuestType } from '@corral/protocol';
import type { CommandContext } from '../drivers/command-context.js';
import type { GuestDriver } from '../drivers/guest-driver.js';
import { guestLabel } from '../drivers/guest-messages.js';
import { CommandFailure } from '../host/command-failure.js';
import type { Logger } from '../logging/logger.js';
import type { RuntimeReports } from '../reports/runtime-reports.js';
import type { Fence, LeaseGuest } from './ha-lease.js';

const key = (type: GuestType, vmid: number) => `${type}:${vmid}`;

/** A guarded command under way (`SelfFence.guard`). */
interface Running {
  readonly key: string;
  readonly abort: AbortController;
}

/**
 * The agent's self-fence: when the HA lease runs out, every HA guest the
 * lease listed is killed through the driver (`GuestDriver.kill`: SIGKILL for native QEMU,
 * `lxc-stop -k`, `qm stop`/`pct stop --skiplock` on PVE), all at once and without waiting for the
 * control plane, and none of them may run again until a newer lease lifts the fence.
 *
 * Against a concurrent start: the commands that can make a guest run go through `guard()`. While
 * the guest is fenced they are refused. One already under way when the fence comes has its signal
 * aborted (a native start then kills what it launched), and when it settles the guest is killed
 * again and the command fails: whatever the start did, the guest does not run once it answers.
 */
export class SelfFence implements Fence {
  private fenced = new Set<string>();
  /** The guests the current lease covers: an HA start of any other is refused, since this agent could not fence it. */
  private covered = new Set<string>();
  private readonly running = new Set<Running>();
  /** The fence's kills under way, for tests and for `settled()`. */
  private kills: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly driver: Pick<GuestDriver, 'kill'>,
    private readonly logger: Logger,
    private readonly runtime?: Pick<RuntimeReports, 'refresh'>,
  ) {}

  fence(guests: readonly LeaseGuest[], renewedAt: Date): void {
    const list = guests.map((guest) => guestLabel(guest.type, guest.vmid));
    this.logger.error(`self-fence: HA lease not renewed since ${renewedAt.toISOString()}; stopping HA guests ${list.join(', ')}`, {
      renewedAt: renewedAt.toISOString(),
      guests: list,
    });
    this.fenced = new Set(guests.map((guest) => key(guest.type, guest.vmid)));
    this.covered = new Set();
    for (const running of this.running) if (this.fenced.has(running.key)) running.abort.abort(new Error('stopped by the HA self-fence'));
    this.kills = Promise.allSettled(guests.map((guest) => this.kill(guest.type, guest.vmid))).then(() => this.runtime?.refresh());
  }

  lift(): void {
    this.fenced = new Set();
  }

  cover(guests: readonly LeaseGuest[]): void {
    this.covered = new Set(guests.map((guest) => key(guest.type, guest.vmid)));
  }

  /** Resolves once the last fence's kills (and the run-state read after them) are done. */
  settled(): Promise<void> {
    return this.kills.then(() => undefined);
  }

  /**
   * Runs a command that can make the guest run (start, reboot, resume, backup): refused while the
   * guest is fenced; see the class. An HA start (`ha`) is refused too unless the current lease
   * covers the guest: an agent that could not fence a guest must not run it under HA.
   */
  async guard<T>(
    type: GuestType,
    vmid: number,
    context: CommandContext,
    operation: (context: CommandContext) => Promise<T>,
    ha = false,
  ): Promise<T> {
    const id = key(type, vmid);
    if (this.fenced.has(id)) throw refused(type, vmid);
    if (ha && !this.covered.has(id))
      throw new CommandFailure(
        'unavailable',
        `${guestLabel(type, vmid)}: this node's HA lease does not cover it yet: it starts under HA once the control plane's next lease lists it`,
      );
    const running = { key: id, abort: new AbortController() };
    this.running.add(running);
    let result: T;
    try {
      result = await operation({ ...context, signal: AbortSignal.any([context.signal, running.abort.signal]) });
    } finally {
      this.running.delete(running);
      if (this.fenced.has(id)) await this.kill(type, vmid);
    }
    if (this.fenced.has(id)) throw refused(type, vmid);
    return result;
  }

  /** One kill, logged; never throws. */
  private async kill(type: GuestType, vmid: number): Promise<void> {
    const guest = guestLabel(type, vmid);
    // Not cancellable: the fence must finish whatever else happens.
    const context: CommandContext = {
      signal: new AbortController().signal,
      log: (line) => this.logger.warn(`self-fence: ${line}`, { guest }),
    };
    try {
      await this.driver.kill(type, vmid, context);
      this.logger.warn(`self-fence: ${guest} stopped`, { guest });
    } catch (error) {
      this.logger.error(`self-fence: could not stop ${guest}`, { guest, error });
    }
  }
}

function refused(type: GuestType, vmid: number): CommandFailure {
  return new CommandFailure(
    'unavailable',
    `${guestLabel(type, vmid)}: this node's HA lease ran out (self-fence): it runs again only once the control plane renews the lease`,
  );
}
