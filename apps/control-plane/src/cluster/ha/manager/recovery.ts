import { Inject, Injectable } from '@nestjs/common';
import type { LogLine } from '@corral/protocol';
import type { Logger } from 'pino';
import { SYSTEM_CALLER } from '../../../http/principal.js';
import { recordEvent } from '../../../events/record-event.js';
import { GuestView } from '../../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../../inventory/guests/guests.repository.js';
import { LOGGER } from '../../../logging/loggers.js';
import { TaskRunner } from '../../../tasks/task-runner.js';
import { HaManagerRepository, type ManagedGuest } from './ha-manager.repository.js';
import { HaPlacement } from './ha-placement.js';
import type { Candidate } from './recovery-target.js';
import { sidOf } from './sid.js';

/**
 * The HA manager's part (docs/ha.md "Fencing and recovery"): the HA guests of a node that went
 * offline are `fence`d (an `ha-fence` event) while its lease runs; once the lease has expired too,
 * when its agent has stopped them itself if it still runs, each is moved to another node by a
 * `harecover` task (an `ha-recover` event), whose local resource manager then starts it. A guest
 * that cannot move says why in a failed `harecover` task on its node, once per reason.
 */
@Injectable()
export class Recovery {
  /** Guests whose `harecover` task runs now. */
  private readonly moving = new Set<number>();
  /** The reason each guest that cannot move was last reported with. */
  private readonly stuck = new Map<number, string>();

  constructor(
    private readonly repository: HaManagerRepository,
    private readonly guests: GuestsRepository,
    private readonly view: GuestView,
    private readonly placement: HaPlacement,
    private readonly runner: TaskRunner,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** `candidates`: the online nodes, with how many HA guests each holds. */
  async round(managed: readonly ManagedGuest[], candidates: readonly Candidate[]): Promise<void> {
    const lost = managed.filter((guest) => !guest.nodeOnline && guest.crmState !== 'error');
    for (const node of new Set(lost.filter((guest) => guest.crmState !== 'fence').map((guest) => guest.node))) {
      const guests = lost.filter((guest) => guest.node === node);
      const leaseUntil = guests[0]?.leaseUntil ?? null;
      await this.repository.setCrmState(
        guests.map((guest) => guest.vmid),
        'fence',
        (db, changed) =>
          recordEvent(db, {
            event: 'ha-fence',
            node,
            details: {
              guests: changed.map((vmid) => sidOf(guests.find((guest) => guest.vmid === vmid) ?? { type: 'vm', vmid })),
              leaseUntil,
            },
          }).then(() => undefined),
      );
      this.logger.warn({ node, leaseUntil }, 'HA: node lost; its HA guests are recovered once its lease has expired');
    }
    const load = new Map(candidates.map((candidate) => [candidate.node, candidate.haGuests]));
    for (const guest of lost.filter((each) => each.leaseExpired && !this.moving.has(each.vmid))) {
      const target = await this.recover(
        guest,
        [...load].map(([node, haGuests]) => ({ node, haGuests })),
      );
      if (target !== null) load.set(target, (load.get(target) ?? 0) + 1);
    }
  }

  /** Starts the guest's move and returns its target; null when it cannot move now. */
  private async recover(guest: ManagedGuest, candidates: readonly Candidate[]): Promise<string | null> {
    const row = this.view.get(guest.vmid)?.row;
    if (!row) return null;
    const sid = sidOf(guest);
    if (row.lock !== null && row.lock !== 'backup')
      return this.cannot(guest, `it is locked (${row.lock}): its ${row.lock} may have left it half on another node, so it is not moved`);
    const { placement, group } = (await this.placement.load()).target(row, guest.group, candidates);
    if (placement.node === null) return this.cannot(guest, placement.reason);
    this.stuck.delete(guest.vmid);
    const from = guest.node;
    const to = placement.node;
    this.moving.add(guest.vmid);
    await this.runner
      .start({ node: to, type: 'harecover', id: String(guest.vmid), caller: SYSTEM_CALLER }, async (_upid, log) => {
        const line = lineWriter(log);
        line(
          `node '${from}' is offline and its HA lease expired${guest.leaseUntil ? ` at ${guest.leaseUntil.toISOString()}` : ''}: its agent has stopped its HA guests, or is gone`,
        );
        line(`recovering ${sid} on node '${to}'${group ? ` (group '${group.group}', priority ${placement.priority ?? 'none'})` : ''}`);
        try {
          await this.guests.update(guest.vmid, async (current, db) => {
            if (current.node !== from)
              throw new Error(`${sid} is no longer on node '${from}' (it is on '${current.node}'): nothing to recover`);
            const [node] = (await db.query(
              'SELECT "online", "lease_until" IS NULL OR "lease_until" < now() AS "expired" FROM "nodes" WHERE "name" = $1 FOR UPDATE',
              [from],
            )) as { online: boolean; expired: boolean }[];
            if (node?.online !== false || !node.expired)
              throw new Error(`node '${from}' is back or its lease was renewed: ${sid} stays there`);
            const crmState = guest.state === 'started' ? 'recovery' : guest.state;
            await db.query('UPDATE "ha_resources" SET "crm_state" = $2, "restarts" = 0 WHERE "vmid" = $1', [guest.vmid, crmState]);
            await recordEvent(db, { event: 'ha-recover', node: to, vmid: guest.vmid, details: { from, to } });
            if (current.lock === 'backup') line(`the backup that held ${sid} ended with node '${from}': its lock is removed`);
            return { node: to, lock: null, status: 'stopped' };
          });
          await this.view.reload(guest.vmid);
          line(
            guest.state === 'started'
              ? `${sid} is now on node '${to}'; its resource manager starts it`
              : `${sid} is now on node '${to}', ${guest.state} as requested`,
          );
        } finally {
          this.moving.delete(guest.vmid);
        }
      })
      .catch((error: unknown) => {
        this.moving.delete(guest.vmid);
        throw error;
      });
    return to;
  }

  /** A guest that cannot move now: said once per reason in a failed `harecover` task on its node; tried again every round. */
  private async cannot(guest: ManagedGuest, reason: string): Promise<null> {
    if (this.stuck.get(guest.vmid) === reason) return null;
    this.stuck.set(guest.vmid, reason);
    this.logger.warn({ sid: sidOf(guest), node: guest.node, reason }, 'HA: cannot recover a guest');
    await this.runner.start({ node: guest.node, type: 'harecover', id: String(guest.vmid), caller: SYSTEM_CALLER }, async () => {
      throw new Error(`cannot recover ${sidOf(guest)} from node '${guest.node}' now: ${reason}`);
    });
    return null;
  }
}

/** Numbered task log lines of the control plane's own. */
function lineWriter(log: (lines: readonly LogLine[]) => void): (text: string) => void {
  let n = 0;
  return (text) => {
    n += 1;
    log([{ n, text }]);
  };
}
