import { badParam } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { usableStorage } from '../../storage/volumes.js';
import { formatVolume, isDiskKey, parseDisk, type VolumeValue } from '@corral/pve-formats';

/*
 * A VM's cloud-init drive in its config: `ide2: local:cloudinit` asks for one, and PVE writes it as
 * the VM's own volume `local:100/vm-100-cloudinit.qcow2,media=cdrom` (no size: the drive is made
 * whole each time it is generated). A clone or restore gets a drive of its own, named for it.
 */

/** The config keys cloud-init reads (PVE's pending list shows these). */
export function isCloudinitKey(key: string): boolean {
  return (
    ['cicustom', 'cipassword', 'citype', 'ciupgrade', 'ciuser', 'nameserver', 'searchdomain', 'sshkeys'].includes(key) ||
    /^ipconfig\d+$/.test(key)
  );
}

/** Whether a volume name is a cloud-init drive's (`100/vm-100-cloudinit.qcow2`). */
export function isCloudinitVolname(volname: string): boolean {
  return /^(\d+)\/vm-\1-cloudinit\.(?:qcow2|raw)$/.test(volname);
}

/**
 * A disk value that is a cloud-init drive (`<storage>:cloudinit`, or any guest's drive, which a
 * clone copies) as guest `vmid`'s own drive on that storage, else undefined. The storage must
 * hold VM images (400 naming `key`).
 */
export function cloudinitDrive(
  key: string,
  volume: VolumeValue,
  placement: { readonly vmid: number; readonly node: string; readonly storages: ReadonlyMap<string, StorageRow> },
): string | undefined {
  const { source, options } = volume;
  if (source.kind !== 'volume' || (source.volname !== 'cloudinit' && !isCloudinitVolname(source.volname))) return undefined;
  usableStorage(placement.storages, source.storage, placement.node, 'images', key);
  const format = options.get('format') ?? /\.(qcow2|raw)$/.exec(source.volname)?.[1] ?? 'qcow2';
  const rest = new Map([...options].filter(([item]) => item !== 'format' && item !== 'size' && item !== 'media'));
  return formatVolume({
    source: { kind: 'volume', storage: source.storage, volname: `${placement.vmid}/vm-${placement.vmid}-cloudinit.${format}` },
    options: new Map([['media', 'cdrom'], ...rest]),
  });
}

/** The key of the VM's cloud-init drive, if it has one. */
export function cloudinitDriveKey(config: Readonly<Record<string, string>>): string | undefined {
  return Object.keys(config).find((key) => isDiskKey(key) && isCloudinitValue(config[key] ?? ''));
}

/** Refuses a config with more than one cloud-init drive, naming the second. */
export function refuseSecondDrive(config: Readonly<Record<string, string>>): void {
  const keys = Object.keys(config).filter((key) => isDiskKey(key) && isCloudinitValue(config[key] ?? ''));
  if (keys.length > 1) throw badParam(keys[1] ?? '', `a VM has one cloud-init drive, and ${keys[0]} is one already`);
}

function isCloudinitValue(value: string): boolean {
  const { source } = parseDisk(value);
  return source.kind === 'volume' && isCloudinitVolname(source.volname);
}
