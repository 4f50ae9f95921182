import type { GuestSpec, GuestVolume } from '@corral/protocol';
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
