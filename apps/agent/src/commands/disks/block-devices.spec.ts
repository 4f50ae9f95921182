import { isWholeDisk, parseBlkidExport, parseLsblk, parseSmartHealth, toDisk } from './block-devices.js';

// The shape of `lsblk -J -b -o NAME,PATH,...` on a PVE host (util-linux 2.38), trimmed.
const LSBLK = JSON.stringify({
  blockdevices: [
    {
      name: 'sda',
      path: '/dev/sda',
      type: 'disk',
      size: 4000787030016,
      rota: true,
      tran: 'sata',
      model: 'ST4000NM000A-2HZ100',
      serial: 'WS21ABCD',
      vendor: 'ATA     ',
      wwn: '0x5000c500a1b2c3d4',
      pttype: null,
      fstype: 'LVM2_member',
      mountpoint: null,
      children: [
        {
          name: 'data-vm--100--disk--0',
          path: '/dev/mapper/data-vm--100--disk--0',
          type: 'lvm',
          size: 8589934592,
          rota: true,
          tran: null,
          model: null,
          serial: null,
          vendor: null,
          wwn: null,
          pttype: null,
          fstype: null,
          mountpoint: null,
        },
      ],
    },
    {
      name: 'nvme0n1',
      path: '/dev/nvme0n1',
      type: 'disk',
      size: 512110190592,
      rota: false,
      tran: 'nvme',
      model: 'Samsung SSD 970 EVO Plus 500GB',
      serial: 'S4EVNX0M123456',
      vendor: null,
      wwn: 'eui.0025385b71b12345',
      pttype: 'gpt',
      fstype: null,
      mountpoint: null,
      children: [
        {
          name: 'nvme0n1p1',
          path: '/dev/nvme0n1p1',
          type: 'part',
          size: 1073741824,
          rota: false,
          tran: 'nvme',
          pttype: 'gpt',
          fstype: 'vfat',
          mountpoint: '/boot/efi',
        },
        {
          name: 'nvme0n1p2',
          path: '/dev/nvme0n1p2',
          type: 'part',
          size: 511035376640,
          rota: false,
          tran: 'nvme',
          pttype: 'gpt',
          fstype: 'LVM2_member',
          mountpoint: null,
          children: [{ name: 'pve-root', path: '/dev/mapper/pve-root', type: 'lvm', size: 101203873792, fstype: 'ext4', mountpoint: '/' }],
        },
      ],
    },
    {
      name: 'sdb',
      path: '/dev/sdb',
      type: 'disk',
      size: 2000398934016,
      rota: false,
      tran: 'usb',
      model: 'Portable SSD',
      serial: null,
      vendor: 'Samsung ',
      wwn: null,
      pttype: null,
      fstype: 'zfs_member',
      mountpoint: null,
    },
    {
      name: 'sdc',
      path: '/dev/sdc',
      type: 'disk',
      size: 1000204886016,
      rota: true,
      tran: 'sas',
      pttype: null,
      fstype: 'linux_raid_member',
      mountpoint: null,
      children: [{ name: 'md0', path: '/dev/md0', type: 'raid1', size: 1000070000000, fstype: 'ext4', mountpoint: '/srv' }],
    },
    { name: 'sr0', path: '/dev/sr0', type: 'rom', size: 1073741312, rota: true, tran: 'sata', mountpoint: null },
    { name: 'zram0', path: '/dev/zram0', type: 'disk', size: 4294967296, rota: false, mountpoint: '[SWAP]' },
  ],
});

// util-linux before 2.37 writes every value as a string.
const OLD_LSBLK =
  '{"blockdevices": [{"name": "vda", "path": "/dev/vda", "type": "disk", "size": "34359738368", "rota": "1", "tran": null, "model": null, "serial": null, "vendor": "0x1af4", "wwn": null, "pttype": "gpt", "fstype": null, "mountpoint": null, "children": [{"name": "vda1", "path": "/dev/vda1", "type": "part", "size": "34358689792", "rota": "1", "fstype": "ext4", "mountpoint": "/"}]}]}';

describe('block devices', () => {
  it("lists whole disks with PVE's words for what uses them", () => {
    const disks = parseLsblk(LSBLK)
      .filter(isWholeDisk)
      .map((device) => toDisk(device, undefined));
    expect(disks).toEqual([
      {
        devpath: '/dev/sda',
        size: 4000787030016,
        type: 'hdd',
        model: 'ST4000NM000A-2HZ100',
        serial: 'WS21ABCD',
        vendor: 'ATA',
        wwn: '0x5000c500a1b2c3d4',
        gpt: false,
        mounted: false,
        used: 'LVM',
      },
      {
        devpath: '/dev/nvme0n1',
        size: 512110190592,
        type: 'nvme',
        model: 'Samsung SSD 970 EVO Plus 500GB',
        serial: 'S4EVNX0M123456',
        wwn: 'eui.0025385b71b12345',
        gpt: true,
        mounted: true,
        used: 'partitions',
      },
      {
        devpath: '/dev/sdb',
        size: 2000398934016,
        type: 'usb',
        model: 'Portable SSD',
        vendor: 'Samsung',
        gpt: false,
        mounted: false,
        used: 'ZFS',
      },
      { devpath: '/dev/sdc', size: 1000204886016, type: 'hdd', gpt: false, mounted: true, used: 'Device Mapper' },
    ]);
  });

  it("reads old lsblk's strings as numbers and booleans", () => {
    const [vda] = parseLsblk(OLD_LSBLK);
    expect(vda && toDisk(vda, 'PASSED')).toEqual({
      devpath: '/dev/vda',
      size: 34359738368,
      type: 'hdd',
      vendor: '0x1af4',
      gpt: true,
      mounted: true,
      used: 'partitions',
      health: 'PASSED',
    });
  });

  it("reads blkid's probe", () => {
    expect(Object.fromEntries(parseBlkidExport('DEVNAME=/dev/loop0\nPTUUID=b42e256a-7beb-46cf-a204-94511e4ccaaf\nPTTYPE=gpt\n'))).toEqual({
      DEVNAME: '/dev/loop0',
      PTUUID: 'b42e256a-7beb-46cf-a204-94511e4ccaaf',
      PTTYPE: 'gpt',
    });
  });

  it("reads smartctl's verdict for ATA, NVMe and SAS disks, and none where SMART is missing", () => {
    expect(parseSmartHealth('=== START OF READ SMART DATA SECTION ===\nSMART overall-health self-assessment test result: PASSED\n')).toBe(
      'PASSED',
    );
    expect(
      parseSmartHealth(
        'SMART overall-health self-assessment test result: FAILED!\nDrive failure expected in less than 24 hours. SAVE ALL DATA.\n',
      ),
    ).toBe('FAILED!');
    expect(parseSmartHealth('=== START OF READ SMART DATA SECTION ===\nSMART Health Status: OK\n')).toBe('OK');
    expect(parseSmartHealth('/dev/vda: Unable to detect device type\nPlease specify device type with the -d option.\n')).toBeUndefined();
  });
});
