import type { GuestSpec, GuestVolume } from '@corral/protocol';
import { rmdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { guestLabel } from './guest-messages.js';

/** The guest's volume with this key (a create's `allocate`, a clone's source of a target volume). */
export function volumeOf(guest: GuestSpec, key: string): GuestVolume {
  const volume = guest.volumes.find((candidate) => candidate.key === key);
  if (volume === undefined) throw new Error(`${guestLabel(guest.type, guest.vmid)} has no volume ${key}`);
  return volume;
}

/** The volumes that are the guest's own: not its CD-ROMs, which are shared ISO images. */
export function ownVolumes(guest: GuestSpec): GuestVolume[] {
  return guest.volumes.filter((volume) => volume.cdrom !== true);
}

/** The guest's own folder of a removed volume (PVE's `images/<vmid>/`), removed once empty: a folder that still holds anything stays. */
export async function removeEmptyGuestFolder(volumePath: string, vmid: number): Promise<void> {
  const folder = dirname(volumePath);
  if (basename(folder) === String(vmid)) await rmdir(folder).catch(() => undefined);
}
