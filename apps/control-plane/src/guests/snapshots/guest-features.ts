import type { GuestSpec, GuestVolume } from '@corral/protocol';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';

export type GuestFeature = 'snapshot' | 'clone' | 'copy';

/**
 * Which volume formats allow a feature on a directory storage, by what the volume is: a template's
 * (`base`), a snapshot's (`snap`, when `snapname` is asked), or else the guest's own (`current`).
 * PVE's table for its `dir` storages (qcow2 snapshots, linked clones of templates, full copies),
 * with what Corral adds for containers: their directories (`subvol`) are snapshotted and copied by
 * the native driver. Linked clones of containers and copies of a snapshot are not built.
 */
const FORMATS: Readonly<Record<GuestFeature, Partial<Record<'base' | 'current' | 'snap', readonly GuestVolume['format'][]>>>> = {
  snapshot: { current: ['qcow2', 'subvol'], snap: ['qcow2', 'subvol'] },
  clone: { base: ['qcow2', 'raw'] },
  copy: { base: ['qcow2', 'raw'], current: ['qcow2', 'raw', 'subvol'] },
};

/** Whether every volume of the guest (CD-ROMs aside) has the feature, as PVE's `has_feature` asks of each. */
export function hasFeature(guest: GuestSpec, feature: GuestFeature, snapname?: string): boolean {
  const which = snapname !== undefined ? 'snap' : guest.template ? 'base' : 'current';
  const formats = FORMATS[feature][which] ?? [];
  // A container's linked clone needs a storage with snapshots: Corral makes none.
  if (feature === 'clone' && guest.type === 'lxc') return false;
  return guest.volumes.filter((volume) => volume.cdrom !== true).every((volume) => formats.includes(volume.format));
}

/**
 * The nodes the VM could run on by its volumes, as PVE's `shared_nodes`: every node, less those a
 * volume's storage does not list in its `nodes`; without `nodes`, a storage that is not shared
 * keeps only the VM's own node; a disabled or missing storage none.
 */
export function sharedNodes(guest: GuestSpec, node: string, nodes: readonly string[], storages: ReadonlyMap<string, StorageRow>): string[] {
  let candidates = [...nodes];
  for (const volume of guest.volumes) {
    const storage = storages.get(volume.volid.slice(0, volume.volid.indexOf(':')));
    if (storage === undefined || storage.disable) return [];
    const { nodes: listed, shared } = storage;
    candidates = candidates.filter((candidate) => (listed !== null ? listed.includes(candidate) : shared || candidate === node));
  }
  return candidates;
}
