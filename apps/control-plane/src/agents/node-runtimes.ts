import type { GuestRuntime, RuntimeReport } from '@corral/protocol';
import type { RuntimeUpdate } from '../inventory/guests/runtime-update.js';

/**
 * Each node's run state as its agent's runtime reports on this replica built it. A whole report
 * replaces the node's; a report of changes applies only on top of the report it names (`since`,
 * in the same agent session), else it is dropped: it follows a report this replica never received
 * (sent to another replica, or before a reconnect), and the agent's next whole report, which comes
 * first on every connection, brings the node's state.
 */
export class NodeRuntimes {
  private readonly nodes = new Map<string, { readonly session: string; seq: number; readonly guests: Map<number, GuestRuntime> }>();

  /** The node's run state after `report` (numbered `seq` in `session`); undefined when it was dropped. */
  apply(node: string, session: string, seq: number, report: Omit<RuntimeReport, 'kind'>): RuntimeUpdate | undefined {
    const making = new Set(report.making);
    if (report.since === undefined) {
      const guests = new Map(report.guests.map((guest) => [guest.vmid, guest]));
      this.nodes.set(node, { session, seq, guests });
      return { guests, changed: 'all', making };
    }
    const held = this.nodes.get(node);
    if (held?.session !== session || held.seq !== report.since) return undefined;
    const gone = report.gone ?? [];
    for (const vmid of gone) held.guests.delete(vmid);
    for (const guest of report.guests) held.guests.set(guest.vmid, guest);
    held.seq = seq;
    return { guests: held.guests, changed: [...gone, ...report.guests.map((guest) => guest.vmid)], making };
  }
}
