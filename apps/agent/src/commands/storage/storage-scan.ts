import type { StorageScan } from '@corral/protocol';

/*
 * Parsers of the storage tools' machine-readable output (byte units, no headings), apart from
 * running them so that recorded output tests them too.
 */

/** `vgs --units b --nosuffix --noheadings -o vg_name,vg_size,vg_free --separator :` */
export function parseVgs(text: string): StorageScan['lvm'] {
  return rows(text, ':').flatMap(([vg, size, free]) =>
    vg === undefined || !isBytes(size) || !isBytes(free) ? [] : [{ vg, size: Number(size), free: Number(free) }],
  );
}

/** `zpool list -Hp -o name,size,free,health` */
export function parseZpoolList(text: string): StorageScan['zfs'] {
  return rows(text, '\t').flatMap(([pool, size, free, health]) =>
    pool === undefined || !isBytes(size) || !isBytes(free) || health === undefined
      ? []
      : [{ pool, size: Number(size), free: Number(free), health }],
  );
}

/** File systems that live on the host's own disks and can hold a directory storage. */
const LOCAL_FILESYSTEMS = new Set(['ext2', 'ext3', 'ext4', 'xfs', 'btrfs', 'zfs', 'f2fs', 'jfs', 'reiserfs', 'nilfs2', 'bcachefs']);

/**
 * `findmnt -J -b -l -o TARGET,SOURCE,FSTYPE,SIZE,AVAIL,FSROOT`: the mounts of local disk file
 * systems, without pseudo file systems (proc, tmpfs, overlay) and without bind mounts of a
 * subdirectory (FSROOT other than '/'), which a container runtime makes of single files. A btrfs
 * subvolume's FSROOT is its path, so btrfs keeps every mount.
 */
export function parseFindmnt(json: string): StorageScan['directories'] {
  const parsed = JSON.parse(json) as { filesystems?: unknown };
  if (!Array.isArray(parsed.filesystems)) return [];
  return parsed.filesystems.flatMap((entry: Record<string, unknown>) => {
    const { target, source, fstype, size, avail, fsroot } = entry;
    if (typeof target !== 'string' || typeof source !== 'string' || typeof fstype !== 'string' || !LOCAL_FILESYSTEMS.has(fstype)) return [];
    if (fsroot !== '/' && fstype !== 'btrfs') return [];
    if (!isBytes(size) || !isBytes(avail)) return [];
    return [{ path: target, device: source, fsType: fstype, size: Number(size), free: Number(avail) }];
  });
}

function rows(text: string, separator: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) =>
      line
        .trim()
        .split(separator)
        .map((field) => field.trim()),
    );
}

function isBytes(value: unknown): boolean {
  return (typeof value === 'number' || (typeof value === 'string' && /^[0-9]+$/.test(value))) && Number.isSafeInteger(Number(value));
}
