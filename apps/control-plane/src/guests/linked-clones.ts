import { parseVolname } from '../storage/volumes.js';
import { isDiskKey, parseDisk } from '@corral/pve-formats';

/** The VMs whose disks are overlays of VM `vmid`'s images (linked clones of the template). */
export function linkedClonesOf(
  vmid: number,
  guests: readonly { readonly vmid: number; readonly config: Readonly<Record<string, string>> }[],
): number[] {
  return guests
    .filter((guest) =>
      Object.entries(guest.config).some(([key, value]) => {
        if (!isDiskKey(key)) return false;
        const { source } = parseDisk(value);
        return source.kind === 'volume' && parseVolname(source.volname)?.base?.vmid === vmid;
      }),
    )
    .map((guest) => guest.vmid)
    .sort((a, b) => a - b);
}
