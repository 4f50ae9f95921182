import type { GuestRow } from '../inventory/guests/guest.entity.js';
import { isMountKey, isQemuVolumeKey, isUnusedKey, parseDisk, parseMount } from '@corral/pve-formats';
import { parseVolname } from './volumes.js';

/** A volume a guest's configuration names: as a disk, CD-ROM, root or mount point, unused volume, or as the base image of a linked clone's disk. */
export interface VolumeUse {
  readonly vmid: number;
  /** `VM 100` or `CT 200`, for messages. */
  readonly guest: string;
  /** The config key that names it (`scsi0`, `ide2`, `rootfs`, `mp0`). */
  readonly key: string;
  readonly storage: string;
  /** Its path below the storage's path; null for a name Corral does not know (it still holds on to the storage). */
  readonly relative: string | null;
}

/** Every volume the guests' configurations name. */
export function volumesInUse(guests: readonly Pick<GuestRow, 'vmid' | 'type' | 'config'>[]): VolumeUse[] {
  return guests.flatMap(({ vmid, type, config }) =>
    Object.entries(config).flatMap(([key, value]): VolumeUse[] => {
      const volume = isUnusedKey(key)
        ? parseDisk(value)
        : type === 'qemu'
          ? isQemuVolumeKey(key)
            ? parseDisk(value)
            : null
          : isMountKey(key)
            ? parseMount(value)
            : null;
      if (volume?.source.kind !== 'volume') return [];
      const { storage, volname } = volume.source;
      const parsed = parseVolname(volname);
      const use = { vmid, guest: `${type === 'qemu' ? 'VM' : 'CT'} ${vmid}`, key, storage };
      return [{ ...use, relative: parsed?.relative ?? null }, ...(parsed?.base ? [{ ...use, relative: parsed.base.relative }] : [])];
    }),
  );
}

/** `VM 100 (scsi0), CT 200 (rootfs)`: who uses them, for a 409. */
export function usersOf(uses: readonly VolumeUse[]): string {
  return [...new Set(uses.map((use) => `${use.guest} (${use.key})`))].join(', ');
}
