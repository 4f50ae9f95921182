import type { BackupSelection } from './vzdump-params.js';

/**
 * Whether a run's selection takes a guest: listed by vmid; or, for `all`, any guest, for `pool`, a
 * member of the pool (`pools`: the guest's pools), either without those in `exclude`.
 */
export function selects(selection: BackupSelection, vmid: number, pools: readonly string[]): boolean {
  if (selection.kind === 'vmids') return selection.vmids.includes(vmid);
  return !selection.exclude.includes(vmid) && (selection.kind === 'all' || pools.includes(selection.pool));
}
