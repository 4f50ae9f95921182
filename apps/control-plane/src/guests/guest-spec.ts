import type { GuestNic, GuestSpec, GuestVolume } from '@corral/protocol';
import { ApiError } from '../errors/api-error.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { parseVolname, storagePath, volumePath } from '../storage/volumes.js';
import {
  isMountKey,
  isNicKey,
  isQemuVolumeKey,
  isUnusedKey,
  parseDisk,
  parseLxcNic,
  parseMount,
  parseQemuNic,
  parseSize,
  type VolumeValue,
} from '@corral/pve-formats';
import type { GuestRow } from '../inventory/guests/guest.entity.js';

/** PVE's defaults for what a config leaves out. */
export const GUEST_DEFAULTS = { memoryMiB: 512, cores: 1, sockets: 1 } as const;

/**
 * The guest as an agent's driver needs it (`GuestSpec` of libs/protocol): the stored config with
 * its property strings parsed and its volumes resolved to host paths. The config was checked when
 * it was written, so a value that does not parse here is a bug, not bad input.
 */
export function guestSpec(row: Pick<GuestRow, 'vmid' | 'type' | 'config'>, storages: ReadonlyMap<string, StorageRow>): GuestSpec {
  const { config, vmid, type } = row;
  const number = (key: string, fallback: number) => (config[key] === undefined ? fallback : Number(config[key]));
  const qemu = type === 'qemu';
  return {
    type,
    vmid,
    name: (qemu ? config['name'] : config['hostname']) ?? `${qemu ? 'VM' : 'CT'}${vmid}`,
    memoryMiB: number('memory', GUEST_DEFAULTS.memoryMiB),
    cores: number('cores', GUEST_DEFAULTS.cores),
    sockets: qemu ? number('sockets', GUEST_DEFAULTS.sockets) : 1,
    ...(qemu && config['cpu'] !== undefined ? { cpu: (config['cpu'].split(',')[0] ?? '').replace(/^cputype=/, '') } : {}),
    ...(config['ostype'] !== undefined ? { ostype: config['ostype'] } : {}),
    template: config['template'] === '1',
    nics: Object.keys(config)
      .filter(isNicKey)
      .sort(byNumber)
      .map((key) => nicOf(type, key, config[key] ?? '')),
    volumes: Object.keys(config)
      .filter((key) => (qemu ? isQemuVolumeKey(key) : isMountKey(key)) || isUnusedKey(key))
      .sort(byNumber)
      .flatMap((key) => volumeOf(key, qemu ? parseDisk(config[key] ?? '') : parseMount(config[key] ?? ''), storages)),
    config,
  };
}

function nicOf(type: GuestRow['type'], key: string, value: string): GuestNic {
  if (type === 'qemu') {
    const nic = parseQemuNic(value);
    if (nic.mac === undefined) throw new ApiError('INTERNAL', `${key} has no MAC address`);
    const bridge = nic.options.get('bridge');
    return { key, mac: nic.mac, model: nic.model, ...(bridge !== undefined ? { bridge } : {}) };
  }
  const { options } = parseLxcNic(value);
  const [mac, bridge, name, ip, gw] = ['hwaddr', 'bridge', 'name', 'ip', 'gw'].map((item) => options.get(item));
  if (mac === undefined) throw new ApiError('INTERNAL', `${key} has no MAC address`);
  return {
    key,
    mac,
    ...(bridge !== undefined ? { bridge } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(ip !== undefined ? { ip: ip as GuestNic['ip'] } : {}),
    ...(gw !== undefined ? { gw } : {}),
  };
}

/** An allocated volume; `none`, and ISOs that are not on a directory storage of Corral's, give nothing. */
function volumeOf(key: string, value: VolumeValue, storages: ReadonlyMap<string, StorageRow>): GuestVolume[] {
  const { source, options } = value;
  if (source.kind !== 'volume') return [];
  const storage = storages.get(source.storage);
  const parsed = parseVolname(source.volname);
  // A storage removed with force=1 while guests still used it: the guest cannot run until its config names another.
  if (!storage)
    throw new ApiError(
      'GUEST_STATE',
      `${key}: storage '${source.storage}' of volume '${source.storage}:${source.volname}' does not exist any more`,
    );
  if (!parsed) throw new ApiError('INTERNAL', `${key}: '${source.storage}:${source.volname}' is not a volume name of a directory storage`);
  const format = parsed.content === 'rootdir' ? 'subvol' : source.volname.endsWith('.raw') ? 'raw' : 'qcow2';
  const cdrom = options.get('media') === 'cdrom';
  return [
    {
      key,
      volid: `${source.storage}:${source.volname}`,
      path: volumePath(storage, source.volname),
      format: parsed.content === 'iso' ? 'raw' : format,
      size: parseSize(options.get('size') ?? '0') ?? 0,
      ...(parsed.base ? { base: storagePath(storage, parsed.base.relative) } : {}),
      ...(cdrom ? { cdrom } : {}),
      ...firmwareStateOf(key, options),
    },
  ];
}

/** What the driver needs to know of the EFI vars disk (its template) and the TPM state (its version); PVE's defaults are 2m and v1.2. */
function firmwareStateOf(key: string, options: ReadonlyMap<string, string>): Pick<GuestVolume, 'efivars' | 'tpm'> {
  if (key === 'efidisk0')
    return { efivars: { type: options.get('efitype') === '4m' ? '4m' : '2m', msKeys: options.get('pre-enrolled-keys') === '1' } };
  if (key === 'tpmstate0') return { tpm: options.get('version') === 'v2.0' ? 'v2.0' : 'v1.2' };
  return {};
}

/** `scsi2` before `scsi10`; `rootfs` before `mp0`. */
function byNumber(a: string, b: string): number {
  const split = (key: string) => /^([a-z]+)(\d*)$/.exec(key) ?? ['', key, ''];
  const [, prefixA = '', numberA = ''] = split(a);
  const [, prefixB = '', numberB = ''] = split(b);
  if (prefixA !== prefixB) return prefixA === 'rootfs' ? -1 : prefixB === 'rootfs' ? 1 : prefixA.localeCompare(prefixB);
  return Number(numberA) - Number(numberB);
}
