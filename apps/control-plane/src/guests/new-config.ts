import { randomBytes, randomUUID } from 'node:crypto';
import { badParam } from '../errors/resource-errors.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { usableStorage } from '../storage/volumes.js';
import {
  formatLxcNic,
  formatQemuNic,
  formatVolume,
  inAllocationOrder,
  isNicKey,
  isUnusedKey,
  newVolumeLayout,
  parseDisk,
  parseLxcNic,
  parseMount,
  parseQemuNic,
  parseSize,
  type VolumeValue,
} from '@corral/pve-formats';
import type { GuestKind } from './guest-kinds.js';
import { cloudinitDrive, refuseSecondDrive } from './cloudinit/cloudinit-drive.js';

/** Volumes that hold a VM's own firmware variables and TPM state. */
const OWN_STATE_KEYS: ReadonlySet<string> = new Set(['efidisk0', 'tpmstate0']);

/** Proxmox's OUI, which PVE gives every generated MAC address. */
const MAC_PREFIX = 'BC:24:11';

export interface Placement {
  readonly vmid: number;
  readonly node: string;
  readonly storages: ReadonlyMap<string, StorageRow>;
}

/** A config ready to store, and the volume keys its agent must allocate. */
export interface ResolvedConfig {
  readonly config: Record<string, string>;
  readonly allocate: string[];
  /** The storages new volumes go to (their space is the caller's to allocate: `Datastore.AllocateSpace`). */
  readonly storages: ReadonlySet<string>;
}

/**
 * Makes a checked config concrete for a new guest, as PVE's create does: every
 * `<storage>:<size>` volume gets its name (`local:100/vm-100-disk-0.qcow2,size=32G`), every
 * network card its MAC address, a VM its SMBIOS UUID, generation id and boot order. New volumes
 * are numbered from `firstDisk`, the EFI vars and TPM state after the disks, as PVE allocates them.
 */
export function resolveNewConfig(
  kind: GuestKind,
  given: Readonly<Record<string, string>>,
  placement: Placement,
  firstDisk = 0,
): ResolvedConfig {
  const config: Record<string, string> = {};
  const allocate: string[] = [];
  const storages = new Set<string>();
  let disk = firstDisk;
  for (const [key, value] of inAllocationOrder(Object.entries(given))) {
    if (kind.isVolumeKey(key)) {
      const volume = kind.type === 'qemu' ? parseDisk(value) : parseMount(value);
      const resolved = resolveVolume(kind, key, volume, placement, disk);
      if (volume.source.kind === 'new') {
        allocate.push(key);
        storages.add(volume.source.storage);
        disk += 1;
      }
      config[key] = resolved;
    } else if (isNicKey(key)) {
      config[key] = withMac(kind, value);
    } else {
      config[key] = value;
    }
  }
  if (kind.type === 'qemu') {
    refuseSecondDrive(config);
    config['smbios1'] ??= `uuid=${randomUUID()}`;
    config['vmgenid'] ??= randomUUID();
    const boot = bootOrder(config);
    if (boot !== undefined) config['boot'] ??= boot;
  } else {
    config['arch'] ??= 'amd64';
  }
  return { config, allocate, storages };
}

function resolveVolume(kind: GuestKind, key: string, volume: VolumeValue, placement: Placement, index: number): string {
  const { source, options } = volume;
  const { vmid, node, storages } = placement;
  if (source.kind === 'none') return formatVolume(volume);
  const cloudinit = kind.type === 'qemu' ? cloudinitDrive(key, volume, placement) : undefined;
  if (cloudinit !== undefined) return cloudinit;
  if (source.kind === 'volume') {
    const cdrom = options.get('media') === 'cdrom';
    if (!cdrom)
      throw badParam(
        key,
        `attaching the existing volume '${source.storage}:${source.volname}' is not supported yet: give <storage>:<size in GiB> for a new one`,
      );
    usableStorage(storages, source.storage, node, 'iso', key);
    if (!source.volname.startsWith('iso/')) throw badParam(key, `'${source.storage}:${source.volname}' is not an ISO image (iso/<file>)`);
    return formatVolume(volume);
  }
  const content = kind.type === 'qemu' ? 'images' : 'rootdir';
  usableStorage(storages, source.storage, node, content, key);
  const layout = newVolumeLayout(key, source.size, options);
  const volname = kind.type === 'qemu' ? `${vmid}/vm-${vmid}-disk-${index}.${layout.format}` : `${vmid}/subvol-${vmid}-disk-${index}`;
  return formatVolume({ source: { kind: 'volume', storage: source.storage, volname }, options: layout.options });
}

/**
 * A network card with its MAC address: the one it gives, else `previous`'s (the card it replaces
 * in a config change), else a generated one, as PVE generates it for a card without one.
 */
function withMac(kind: GuestKind, value: string, previous?: string): string {
  const mac = () => (previous === undefined ? undefined : macOf(kind, previous)) ?? generatedMac();
  if (kind.type === 'qemu') {
    const nic = parseQemuNic(value);
    return formatQemuNic(nic.mac === undefined ? { ...nic, mac: mac() } : nic);
  }
  const nic = parseLxcNic(value);
  if (nic.options.has('hwaddr')) return formatLxcNic(nic);
  return formatLxcNic({ options: new Map([...nic.options, ['hwaddr', mac()], ['type', 'veth']]) });
}

/** A value as a config change stores it: a network card with its MAC address (`withMac`, keeping `previous`'s), anything else as given. */
export function changedValue(kind: GuestKind, key: string, value: string, previous?: string): string {
  return isNicKey(key) ? withMac(kind, value, previous) : value;
}

function macOf(kind: GuestKind, value: string): string | undefined {
  return kind.type === 'qemu' ? parseQemuNic(value).mac : parseLxcNic(value).options.get('hwaddr');
}

function generatedMac(): string {
  return [MAC_PREFIX, ...[...randomBytes(3)].map((byte) => byte.toString(16).toUpperCase().padStart(2, '0'))].join(':');
}

/** PVE's default boot order: the disks, then the first network card; none without either. */
function bootOrder(config: Readonly<Record<string, string>>): string | undefined {
  const devices = Object.keys(config).filter((key) => /^(?:scsi|virtio|sata|ide)\d+$/.test(key) || key === 'net0');
  if (devices.length === 0) return undefined;
  return `order=${devices.sort((a, b) => Number(a === 'net0') - Number(b === 'net0')).join(';')}`;
}

/**
 * The config of a clone of `source` as guest `placement.vmid`, as PVE's clone writes it: the same
 * settings without `template`, new MAC addresses, a new SMBIOS UUID and generation id, the new
 * name, and its volumes: for a full clone each copied to a new volume of the same size (on
 * `storage`, in `format`, when given); for a linked clone of a template each an overlay of the
 * template's image, named as PVE names it (`local:100/vm-100-disk-0.qcow2/101/vm-101-disk-0.qcow2`).
 */
export function cloneConfig(
  kind: GuestKind,
  source: Readonly<Record<string, string>>,
  placement: Placement & CloneChoices,
): ResolvedConfig {
  const given: Record<string, string> = {};
  const linked: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'template' || key === 'smbios1' || key === 'vmgenid' || isUnusedKey(key)) continue;
    if (kind.isVolumeKey(key)) {
      const volume = kind.type === 'qemu' ? parseDisk(value) : parseMount(value);
      if (volume.source.kind !== 'volume' || volume.options.get('media') === 'cdrom') given[key] = value;
      // Each VM's firmware variables and TPM state are its own: a linked clone gets copies of them.
      else if (placement.linked && !OWN_STATE_KEYS.has(key))
        linked[key] = linkedVolume(volume.source, volume.options, placement.vmid, Object.keys(linked).length);
      else given[key] = copiedVolume(volume.source.storage, volume.source.volname, volume.options, placement);
    } else if (isNicKey(key)) {
      given[key] = withoutMac(kind, value);
    } else {
      given[key] = value;
    }
  }
  if (placement.name !== undefined) given[kind.type === 'qemu' ? 'name' : 'hostname'] = placement.name;
  // The copies a linked clone still makes (its EFI vars, its TPM state) are numbered after its overlays.
  const resolved = resolveNewConfig(kind, given, placement, Object.keys(linked).length);
  return { ...resolved, config: { ...resolved.config, ...linked } };
}

/**
 * The config of a guest restored from a backup as guest `placement.vmid`: the archived settings
 * as they were (MAC addresses, SMBIOS UUID and generation id too, as PVE's restore keeps them), each
 * volume a new one of its size (on `storage` when given, else where it was), which the restore
 * fills from the archive (with `unique`, the network cards get new MAC addresses). A CD-ROM keeps its ISO. A template is restored as a plain guest: its
 * disks are new `vm-` volumes, not `base-` ones (docs/backups.md).
 */
export function restoreConfig(
  kind: GuestKind,
  archived: Readonly<Record<string, string>>,
  placement: Placement & { readonly storage?: string; readonly unique?: boolean },
): ResolvedConfig {
  const given: Record<string, string> = {};
  for (const [key, value] of Object.entries(archived)) {
    if (key === 'template' || isUnusedKey(key)) continue;
    if (!kind.isVolumeKey(key)) {
      given[key] = placement.unique === true && isNicKey(key) ? withoutMac(kind, value) : value;
      continue;
    }
    const volume = kind.type === 'qemu' ? parseDisk(value) : parseMount(value);
    const own = volume.source.kind === 'volume' && volume.options.get('media') !== 'cdrom';
    given[key] =
      own && volume.source.kind === 'volume'
        ? copiedVolume(volume.source.storage, volume.source.volname, volume.options, placement)
        : value;
  }
  return resolveNewConfig(kind, given, placement);
}

export interface CloneChoices {
  readonly name?: string;
  readonly storage?: string;
  readonly format?: 'qcow2' | 'raw';
  readonly linked?: boolean;
}

/** A full copy: a new volume of the source's size, which `resolveNewConfig` names. */
function copiedVolume(storage: string, volname: string, options: ReadonlyMap<string, string>, placement: CloneChoices): string {
  const size = parseSize(options.get('size') ?? '') ?? 0;
  const rest = new Map(options);
  rest.delete('size');
  const format = placement.format ?? /\.(qcow2|raw)$/.exec(volname)?.[1];
  if (format !== undefined) rest.set('format', format);
  return formatVolume({ source: { kind: 'new', storage: placement.storage ?? storage, size }, options: rest });
}

function linkedVolume(
  source: { storage: string; volname: string },
  options: ReadonlyMap<string, string>,
  vmid: number,
  index: number,
): string {
  return formatVolume({
    source: { kind: 'volume', storage: source.storage, volname: `${source.volname}/${vmid}/vm-${vmid}-disk-${index}.qcow2` },
    options,
  });
}

function withoutMac(kind: GuestKind, value: string): string {
  if (kind.type === 'qemu') return formatQemuNic({ ...parseQemuNic(value), mac: undefined });
  const { options } = parseLxcNic(value);
  return formatLxcNic({ options: new Map([...options].filter(([key]) => key !== 'hwaddr')) });
}
