import { parseFindmnt, parseVgs, parseZpoolList } from './storage-scan.js';

describe("storage tools' output", () => {
  it('reads vgs in bytes', () => {
    expect(parseVgs('  pve:498216206336:16106127360\n  data:4000783007744:0\n')).toEqual([
      { vg: 'pve', size: 498216206336, free: 16106127360 },
      { vg: 'data', size: 4000783007744, free: 0 },
    ]);
    expect(parseVgs('')).toEqual([]);
  });

  it('reads zpool list -Hp', () => {
    expect(parseZpoolList('rpool\t498216206336\t400000000000\tONLINE\ntank\t3985729650688\t3221225472000\tDEGRADED\n')).toEqual([
      { pool: 'rpool', size: 498216206336, free: 400000000000, health: 'ONLINE' },
      { pool: 'tank', size: 3985729650688, free: 3221225472000, health: 'DEGRADED' },
    ]);
  });

  it('keeps mounts of local disk file systems, not pseudo file systems or bind mounts of a subdirectory', () => {
    const findmnt = JSON.stringify({
      filesystems: [
        { target: '/', source: '/dev/mapper/pve-root', fstype: 'ext4', size: 101203873792, avail: 88046829568, fsroot: '/' },
        { target: '/proc', source: 'proc', fstype: 'proc', size: 0, avail: 0, fsroot: '/' },
        { target: '/run', source: 'tmpfs', fstype: 'tmpfs', size: 3355443200, avail: 3355000000, fsroot: '/' },
        {
          target: '/var/lib/docker/overlay2/x/merged',
          source: 'overlay',
          fstype: 'overlay',
          size: 101203873792,
          avail: 88046829568,
          fsroot: '/',
        },
        {
          target: '/etc/hosts',
          source: '/dev/mapper/pve-root',
          fstype: 'ext4',
          size: 101203873792,
          avail: 88046829568,
          fsroot: '/var/lib/docker/containers/abc/hosts',
        },
        { target: '/home', source: '/dev/sda2', fstype: 'btrfs', size: 500000000000, avail: 400000000000, fsroot: '/@home' },
        { target: '/tank/data', source: 'tank/data', fstype: 'zfs', size: 3221225472000, avail: 3221225472000, fsroot: '/' },
      ],
    });
    expect(parseFindmnt(findmnt)).toEqual([
      { path: '/', device: '/dev/mapper/pve-root', fsType: 'ext4', size: 101203873792, free: 88046829568 },
      { path: '/home', device: '/dev/sda2', fsType: 'btrfs', size: 500000000000, free: 400000000000 },
      { path: '/tank/data', device: 'tank/data', fsType: 'zfs', size: 3221225472000, free: 3221225472000 },
    ]);
  });
});
