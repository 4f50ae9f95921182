import type { Disk } from '@corral/protocol';

/** One device of `lsblk -J -b -o` with `LSBLK_COLUMNS`, its partitions and holders below it. */
export interface BlockDevice {
  readonly name: string;
  readonly path: string;
  /** `disk`, `loop`, `part`, `lvm`, `crypt`, `raid1`, `rom`, ... */
  readonly type: string;
  readonly size: number;
  readonly rota?: boolean;
  readonly tran?: string;
  readonly model?: string;
  readonly serial?: string;
  readonly vendor?: string;
  readonly wwn?: string;
  readonly pttype?: string;
  readonly fstype?: string;
  readonly mountpoint?: string;
  readonly children: readonly BlockDevice[];
}

/** MOUNTPOINT rather than MOUNTPOINTS: Debian 11's lsblk (2.36) lacks the plural, and one mount point is enough to say "mounted". */
export const LSBLK_COLUMNS = 'NAME,PATH,TYPE,SIZE,ROTA,TRAN,MODEL,SERIAL,VENDOR,WWN,PTTYPE,FSTYPE,MOUNTPOINT';

export function parseLsblk(json: string): BlockDevice[] {
  const parsed = JSON.parse(json) as { blockdevices?: unknown };
  return Array.isArray(parsed.blockdevices) ? parsed.blockdevices.map(toBlockDevice) : [];
}

function toBlockDevice(value: unknown): BlockDevice {
  const raw = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const text = (key: string) => {
    const value = raw[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  // lsblk before 2.37 writes numbers and booleans as strings ("1", "0").
  const size = Number(raw['size'] ?? 0);
  const rota = raw['rota'] === true || raw['rota'] === '1' ? true : raw['rota'] === false || raw['rota'] === '0' ? false : undefined;
  return {
    name: text('name') ?? '',
    path: text('path') ?? '',
    type: text('type') ?? '',
    size: Number.isSafeInteger(size) && size > 0 ? size : 0,
    rota,
    tran: text('tran'),
    model: text('model'),
    serial: text('serial'),
    vendor: text('vendor'),
    wwn: text('wwn'),
    pttype: text('pttype'),
    fstype: text('fstype'),
    mountpoint: text('mountpoint'),
    children: Array.isArray(raw['children']) ? raw['children'].map(toBlockDevice) : [],
  };
}

/** A disk PVE would list: a whole disk (or an attached loop device), not a RAM or zram disk, not empty. */
export function isWholeDisk(device: BlockDevice): boolean {
  return (device.type === 'disk' || device.type === 'loop') && device.size > 0 && !/^z?ram[0-9]+$/.test(device.name);
}

/** The disk with everything below it: partitions, and what holds the disk or its partitions. */
export function descendants(device: BlockDevice): BlockDevice[] {
  return device.children.flatMap((child) => [child, ...descendants(child)]);
}

/**
 * What uses a disk, with PVE's words: its partitions, LVM, ZFS, a mount, a device-mapper or RAID
 * holder, or the file system written straight on it. Undefined for a disk free to initialise,
 * which an empty GPT is.
 */
export function diskUsage(device: BlockDevice): string | undefined {
  if (device.children.some((child) => child.type === 'part')) return 'partitions';
  if (device.fstype === 'LVM2_member' || device.children.some((child) => child.type === 'lvm')) return 'LVM';
  if (device.fstype === 'zfs_member') return 'ZFS';
  if (device.mountpoint !== undefined) return 'mounted';
  if (device.children.length > 0) return 'Device Mapper';
  return device.fstype;
}

export function diskType(device: BlockDevice): Disk['type'] {
  if (device.type === 'loop') return 'unknown';
  if (device.tran === 'usb') return 'usb';
  if (device.tran === 'nvme' || device.name.startsWith('nvme')) return 'nvme';
  if (device.rota === false) return 'ssd';
  if (device.rota === true) return 'hdd';
  return 'unknown';
}

/** The protocol's view of a whole disk; `health` comes from smartctl where present. */
export function toDisk(device: BlockDevice, health: string | undefined): Disk {
  const mounted = [device, ...descendants(device)].some((below) => below.mountpoint !== undefined);
  return {
    devpath: device.path,
    size: device.size,
    type: diskType(device),
    model: device.model,
    serial: device.serial,
    vendor: device.vendor,
    wwn: device.wwn,
    gpt: device.pttype === 'gpt',
    mounted,
    used: diskUsage(device),
    health,
  };
}

/** `blkid -p -o export` output as a map (PTTYPE, TYPE, ...): the probe for hosts without udev, where lsblk shows no PTTYPE or FSTYPE. */
export function parseBlkidExport(text: string): Map<string, string> {
  return new Map(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
  );
}

/** smartctl -H's verdict: `PASSED`/`FAILED` for ATA and NVMe, `OK` or the sense text for SAS; undefined when the disk has no SMART. */
export function parseSmartHealth(text: string): string | undefined {
  const verdict = /SMART overall-health self-assessment test result:\s*(\S+)/.exec(text) ?? /SMART Health Status:\s*(.+)/.exec(text);
  return verdict?.[1]?.trim();
}
