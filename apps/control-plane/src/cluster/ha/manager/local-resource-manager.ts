import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AgentHub } from '../../../agents/agent-hub.js';
import { AgentLeases } from '../../../agents/agent-leases.js';
import { ApiError } from '../../../errors/api-error.js';
import { recordEvent } from '../../../events/record-event.js';
import { GuestTasks } from '../../../guests/guest-tasks.js';
import { GuestView } from '../../../inventory/guests/guest-view.js';
import { PowerService } from '../../../guests/power/power.service.js';
import { runState } from '../../../guests/status-entry.js';
import { SYSTEM_CALLER } from '../../../http/principal.js';
import { LOGGER } from '../../../logging/loggers.js';
import { HaMoves } from '../ha-moves.service.js';
import type { HaCrmState } from '../../../inventory/ha/ha-resource.entity.js';
import { HaManagerRepository, type ManagedGuest } from './ha-manager.repository.js';
import { HaPlacement } from './ha-placement.js';
import { kindOfResource, sidOf } from './sid.js';

/** After an action of its own on a guest, the guest is left alone this long: its run state comes from the agent's reports, which follow the action. */
const SETTLE_MS = 5000;

/**
 * PVE's local resource manager, run by each replica for the nodes whose agents it holds (docs/ha.md):
 * an HA guest requested `started` that is not running is started (a recovered one included; its
 * agent refuses until its HA lease lists the guest, as PVE's LRM waits for its agent lock), one
 * requested `stopped` or `disabled` that runs is stopped, each a `qmstart`/`qmstop` task of
 * root@pam. A guest busy with an operation or locked is left to it. Failed starts count against
 * `max_restart`; past it a VM is relocated to another node (up to `max_relocate` times), and then
 * the guest is put in `error` (an `ha-error` event) until it is disabled.
 */
@Injectable()
export class LocalResourceManager {
  /** Until when each guest acted on is left alone (Infinity while the action runs). */
  private readonly settling = new Map<number, number>();

  constructor(
    private readonly repository: HaManagerRepository,
    private readonly power: PowerService,
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly hub: AgentHub,
    private readonly leases: AgentLeases,
    private readonly placement: HaPlacement,
    private readonly moves: HaMoves,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async round(managed: readonly ManagedGuest[]): Promise<void> {
    const now = Date.now();
    for (const guest of managed) {
      if (!guest.nodeOnline || !this.hub.holds(guest.node) || this.tasks.busy(guest.vmid) || (this.settling.get(guest.vmid) ?? 0) > now)
        continue;
      const state = this.view.get(guest.vmid);
      if (!state || state.row.node !== guest.node || state.row.lock !== null) continue;
      if (guest.crmState === 'error') {
        if (guest.state === 'disabled') await this.repository.settle(guest.vmid, 'disabled');
        continue;
      }
      const running = runState(state) !== 'stopped';
      if (guest.state === 'started' && !running) {
        // Its agent refuses the start until its lease covers the guest: asked once the lease listing it went out.
        if (this.leases.covers(guest.node, guest.vmid)) void this.act(guest, 'start', managed);
      } else if (guest.state !== 'started' && running) void this.act(guest, 'stop', managed);
      else {
        const settled: HaCrmState = guest.state;
        if (guest.crmState !== settled) await this.repository.settle(guest.vmid, settled);
      }
    }
  }

  /** `managed`: the round's view of every HA guest, for a relocation's placement. */
  private async act(guest: ManagedGuest, action: 'start' | 'stop', managed: readonly ManagedGuest[]): Promise<void> {
    const sid = sidOf(guest);
    this.settling.set(guest.vmid, Infinity);
    let settleMs = SETTLE_MS;
    try {
      if (action === 'stop') await this.repository.setCrmState([guest.vmid], 'request_stop');
      await this.power.haPower(kindOfResource(guest.type), guest.vmid, action);
      if (action === 'start') await this.repository.started(guest.vmid, true);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof ApiError && error.code === 'NODE_UNAVAILABLE') {
        // Not the guest's failure: the node's lease does not list it yet (it comes within a liveness tick), or the node went away.
        settleMs = 0;
        this.logger.info({ sid, node: guest.node, action, reason }, 'HA: the node cannot act on the guest now');
      } else {
        this.logger.warn({ sid, node: guest.node, action, reason }, 'HA: an action on a guest failed');
        if (action === 'start')
          await this.failedStart(guest, reason, managed).catch((failure: unknown) =>
            this.logger.warn({ err: failure, sid }, 'HA: cannot count a failed start or act on it'),
          );
      }
    } finally {
      this.settling.set(guest.vmid, Date.now() + settleMs);
    }
  }

  /**
   * Counts a failed start; past `max_restart` the guest is relocated (while `max_relocate` allows,
   * to the node the HA manager would recover it on), and otherwise put in `error`.
   */
  private async failedStart(guest: ManagedGuest, reason: string, managed: readonly ManagedGuest[]): Promise<void> {
    const count = await this.repository.started(guest.vmid, false);
    if (count === null || count.restarts <= count.maxRestart) return;
    if (count.relocations < count.maxRelocate && (await this.relocate(guest, managed))) return;
    await this.repository.setCrmState([guest.vmid], 'error', async (db) => {
      await recordEvent(db, { event: 'ha-error', node: guest.node, vmid: guest.vmid, details: { reason, restarts: count.restarts } });
    });
    this.logger.error(
      { sid: sidOf(guest), node: guest.node, restarts: count.restarts },
      'HA: a guest failed to start more than max_restart times; it is in error until disabled',
    );
  }

  /** Moves the stopped guest to another node after its failed starts (a `qmigrate` or `vzmigrate` task); false when no node can take it. */
  private async relocate(guest: ManagedGuest, managed: readonly ManagedGuest[]): Promise<boolean> {
    const row = this.view.get(guest.vmid)?.row;
    if (!row) return false;
    const { placement } = (await this.placement.load()).target(row, guest.group, await this.repository.candidates(managed));
    if (placement.node === null) return false;
    await this.repository.relocated(guest.vmid);
    await this.moves.move({ type: guest.type, vmid: guest.vmid }, placement.node, 'relocate', SYSTEM_CALLER);
    this.logger.warn(
      { sid: sidOf(guest), from: guest.node, to: placement.node },
      'HA: a guest failed to start more than max_restart times; relocating it',
    );
    return true;
  }
}
