import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { GuestTasks } from '../../../guests/guest-tasks.js';
import { GuestView } from '../../../inventory/guests/guest-view.js';
import { LOGGER } from '../../../logging/loggers.js';
import { HaMoveRelay } from '../ha-move-relay.js';
import type { ManagedGuest } from './ha-manager.repository.js';
import { HaPlacement, type Placer } from './ha-placement.js';
import { groupRank, type Candidate } from './recovery-target.js';
import { sidOf } from './sid.js';

/** A failback that failed (or was refused) is tried again no sooner than this. */
const RETRY_MS = 60_000;

/**
 * The HA manager's moves of running guests to the nodes their group prefers (docs/ha.md "Moves and
 * failback"), as PVE's CRM does: a guest on a node its restricted group does not allow moves to one
 * it does; and unless the group says `nofailback`, a guest moves to an online node of higher
 * priority than its own, such as its preferred node back from a failure. A VM moves live; a
 * container is relocated (shut down, moved, started there by the HA manager), as PVE moves them.
 */
@Injectable()
export class Failback {
  /** When each guest's last move was asked for. */
  private readonly asked = new Map<number, number>();

  constructor(
    private readonly placement: HaPlacement,
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly moves: HaMoveRelay,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async round(managed: readonly ManagedGuest[], candidates: readonly Candidate[]): Promise<void> {
    const now = Date.now();
    let placer: Placer | undefined;
    for (const guest of managed) {
      if (guest.group === null || guest.state !== 'started' || guest.crmState !== 'started' || !guest.nodeOnline) continue;
      if (this.tasks.busy(guest.vmid) || (this.asked.get(guest.vmid) ?? 0) > now - RETRY_MS) continue;
      const row = this.view.get(guest.vmid)?.row;
      if (!row || row.lock !== null) continue;
      placer ??= await this.placement.load();
      const { placement: best, group } = placer.target(row, guest.group, candidates);
      if (group === null) continue;
      const here = groupRank(group, guest.node);
      if (here !== undefined && group.nofailback) continue;
      if (best.node === null || (here !== undefined && (groupRank(group, best.node) ?? -1) <= here)) continue;
      this.asked.set(guest.vmid, now);
      const why =
        here === undefined
          ? `its restricted group '${group.group}' does not allow node '${guest.node}'`
          : `its group '${group.group}' prefers node '${best.node}'`;
      try {
        await this.moves.move({ type: guest.type, vmid: guest.vmid, target: best.node, how: 'migrate' });
        this.logger.info({ sid: sidOf(guest), from: guest.node, to: best.node }, `HA: moving a guest: ${why}`);
      } catch (error) {
        this.logger.warn({ err: error, sid: sidOf(guest), to: best.node }, `HA: cannot move a guest (${why}); trying again in a minute`);
      }
    }
  }
}
