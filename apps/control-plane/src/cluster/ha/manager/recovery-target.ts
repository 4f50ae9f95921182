import type { StorageRow } from '../../../storage/storage.entity.js';
import { availableOn } from '../../../storage/storage-config.js';
import type { HaGroupRow } from '../ha-group.entity.js';

/** A node a lost guest could be recovered on. */
export interface Candidate {
  readonly node: string;
  /** How many HA guests it runs or holds already: the least loaded wins among equal priorities. */
  readonly haGuests: number;
}

export type Placement = { readonly node: string; readonly priority: number | null } | { readonly node: null; readonly reason: string };

/**
 * Where the HA manager recovers a guest whose node was lost (docs/ha.md "Fencing and recovery"):
 * among the online `candidates`, those its group allows (a restricted group: only its nodes; any
 * other: its nodes first, then the rest), where every storage of its volumes is shared and
 * available; the group's highest priority first, then the node with the fewest HA guests, then by
 * name. PVE's choice, save that PVE trusts a storage to be reachable and Corral checks it.
 */
export function recoveryTarget(guest: { readonly storages: readonly string[] }, group: HaGroupRow | null, candidates: readonly Candidate[], storages: ReadonlyMap<string, StorageRow>): Placement {
  const local = guest.storages.filter((id) => storages.get(id)?.shared !== true);
  if (local.length > 0) return { node: null, reason: `its volumes are on storage ${local.map((id) => `'${id}'`).join(', ')}, which is not shared: no other node reaches them` };
  const usable = (id: string, node: string) => {
    const storage = storages.get(id);
    return storage !== undefined && !storage.disable && availableOn(storage, node);
  };
  const reachable = candidates.filter((candidate) => guest.storages.every((id) => usable(id, candidate.node)));
  const priorityOf = (node: string): number | null | undefined => {
    if (group === null) return null;
    const member = group.nodes.find((entry) => entry.node === node);
    return member === undefined ? undefined : member.priority;
  };
  const allowed = reachable.flatMap((candidate) => {
    const priority = priorityOf(candidate.node);
    if (priority === undefined && group?.restricted === true) return [];
    return [{ ...candidate, rank: priority === undefined ? -1 : (priority ?? 0), priority: priority ?? null }];
  });
  const best = allowed.sort((a, b) => b.rank - a.rank || a.haGuests - b.haGuests || a.node.localeCompare(b.node))[0];
  if (best !== undefined) return { node: best.node, priority: best.priority };
  if (reachable.length === 0) return { node: null, reason: candidates.length === 0 ? 'no other node is online' : `no online node reaches storage ${guest.storages.map((id) => `'${id}'`).join(', ')}` };
  return { node: null, reason: `its group '${group?.group ?? ''}' is restricted to nodes ${group?.nodes.map((entry) => `'${entry.node}'`).join(', ') ?? ''}, and none of them is online` };
}
