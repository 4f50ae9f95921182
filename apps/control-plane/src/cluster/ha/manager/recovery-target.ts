import type { GuestRow } from '../../../inventory/guests/guest.entity.js';
import { guestSpec } from '../../../guests/guest-spec.js';
import type { StorageRow } from '../../../inventory/storage/storage.entity.js';
import { availableOn } from '../../../storage/storage-config.js';
import type { HaGroupRow } from '../../../inventory/ha/ha-group.entity.js';

/** A node a lost guest could be recovered on. */
export interface Candidate {
  readonly node: string;
  /** How many HA guests it runs or holds already: the least loaded wins among equal priorities. */
  readonly haGuests: number;
}

export type Placement = { readonly node: string; readonly priority: number | null } | { readonly node: null; readonly reason: string };

/** The storages of the guest's volumes. */
export function guestStorages(row: Pick<GuestRow, 'vmid' | 'type' | 'config'>, storages: ReadonlyMap<string, StorageRow>): string[] {
  return [...new Set(guestSpec(row, storages).volumes.map((volume) => volume.volid.slice(0, volume.volid.indexOf(':'))))];
}

/**
 * How much the group wants the guest on `node`: its priority there (none counts as 0), -1 on a node
 * outside the group, and undefined where a restricted group does not allow it. Without a group,
 * every node is 0.
 */
export function groupRank(group: HaGroupRow | null, node: string): number | undefined {
  if (group === null) return 0;
  const member = group.nodes.find((entry) => entry.node === node);
  if (member === undefined) return group.restricted ? undefined : -1;
  return member.priority ?? 0;
}

/**
 * Where the HA manager puts a guest (docs/ha.md "Fencing and recovery", "Moves and failback"):
 * among the online `candidates`, those its group allows (a restricted group: only its nodes; any
 * other: its nodes first, then the rest), where every storage of its volumes is shared and
 * available; the group's highest priority first, then the node with the fewest HA guests, then by
 * name. PVE's choice, save that PVE trusts a storage to be reachable and Corral checks it.
 */
export function recoveryTarget(
  guest: { readonly storages: readonly string[] },
  group: HaGroupRow | null,
  candidates: readonly Candidate[],
  storages: ReadonlyMap<string, StorageRow>,
): Placement {
  const local = guest.storages.filter((id) => storages.get(id)?.shared !== true);
  if (local.length > 0)
    return {
      node: null,
      reason: `its volumes are on storage ${local.map((id) => `'${id}'`).join(', ')}, which is not shared: no other node reaches them`,
    };
  const usable = (id: string, node: string) => {
    const storage = storages.get(id);
    return storage !== undefined && !storage.disable && availableOn(storage, node);
  };
  const reachable = candidates.filter((candidate) => guest.storages.every((id) => usable(id, candidate.node)));
  const allowed = reachable.flatMap((candidate) => {
    const rank = groupRank(group, candidate.node);
    if (rank === undefined) return [];
    return [{ ...candidate, rank, priority: group?.nodes.find((entry) => entry.node === candidate.node)?.priority ?? null }];
  });
  const best = allowed.sort((a, b) => b.rank - a.rank || a.haGuests - b.haGuests || a.node.localeCompare(b.node))[0];
  if (best !== undefined) return { node: best.node, priority: best.priority };
  if (reachable.length === 0)
    return {
      node: null,
      reason:
        candidates.length === 0
          ? 'no other node is online'
          : `no online node reaches storage ${guest.storages.map((id) => `'${id}'`).join(', ')}`,
    };
  return {
    node: null,
    reason: `its group '${group?.group ?? ''}' is restricted to nodes ${group?.nodes.map((entry) => `'${entry.node}'`).join(', ') ?? ''}, and none of them is online`,
  };
}
