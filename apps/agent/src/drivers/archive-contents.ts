import type { GuestSpec } from '@corral/protocol';
import { CommandFailure } from '../host/command-failure.js';
import { backupOwner } from './backup-archive.js';
import { guestLabel } from './guest-messages.js';
import { ownVolumes } from './guest-volumes.js';

/*
 * Which volumes a backup archive holds (libs/protocol's guest-backup.ts): a VM's disks, a
 * container's root file system only. What is not in it cannot be restored from it.
 */

/** A container's mount point volume: `mp0`, `mp1`, ... */
const MOUNT_POINT = /^mp\d+$/;
/** The path inside the container of a mount point's config value: `local:200/subvol-200-disk-1,mp=/srv/data,size=2G`. */
const MOUNT_PATH = /(?:^|,)mp=([^,]+)/;

/** The keys of the volumes a backup of the guest holds: a VM's own disks (not its CD-ROMs, nor its `unusedN` volumes, as PVE), a container's root. */
export function archivedVolumes(guest: GuestSpec): string[] {
  return ownVolumes(guest)
    .map((volume) => volume.key)
    .filter((key) => (guest.type === 'qemu' ? !key.startsWith('unused') : key === 'rootfs'));
}

/**
 * The task log lines of a container backup's mount points. PVE leaves a mount point out unless it
 * is marked `backup=1`; Corral leaves them all out, as PVE words it.
 */
export function excludedMountPoints(guest: GuestSpec): string[] {
  return guest.volumes
    .filter((volume) => MOUNT_POINT.test(volume.key))
    .map(
      (volume) =>
        `INFO: excluding volume mount point ${volume.key} ('${MOUNT_PATH.exec(guest.config[volume.key] ?? '')?.[1] ?? '?'}') from backup`,
    );
}

/**
 * Refuses a restore the archive cannot serve: an archive of the other kind of guest (its name
 * says which), or for a container a volume other than its root.
 */
export function refuseUnrestorable(guest: GuestSpec, file: string, restore: readonly string[]): void {
  const label = guestLabel(guest.type, guest.vmid);
  if (backupOwner(file).type !== guest.type)
    throw new CommandFailure(
      'invalid-params',
      `${file} is not a backup of a ${guest.type === 'qemu' ? 'VM' : 'container'}: it cannot restore ${label}`,
    );
  const other = guest.type === 'lxc' ? restore.find((key) => key !== 'rootfs') : undefined;
  if (other !== undefined)
    throw new CommandFailure('invalid-params', `${label}: a container's backup holds only its root file system (rootfs), not ${other}`);
}
