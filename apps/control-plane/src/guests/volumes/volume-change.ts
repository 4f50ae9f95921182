import type { Privilege } from '@corral/acl';
import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { parseVolname, usableStorage } from '../../storage/volumes.js';
import {
  formatVolume,
  freeUnusedKey,
  isUnusedKey,
  newVolumeLayout,
  parseDisk,
  parseMount,
  parseSize,
  type VolumeValue,
} from '@corral/pve-formats';
import type { GuestKind } from '../guest-kinds.js';
import { changedValue } from '../new-config.js';
import { newVolumeName } from './volume-names.js';
import { cloudinitDrive, isCloudinitVolname, refuseSecondDrive } from '../cloudinit/cloudinit-drive.js';

/** A config change as the request gives it: keys to set (checked and normalised by their rules) and keys to delete. */
export interface ConfigChange {
  readonly set: Readonly<Record<string, string>>;
  readonly deleted: readonly string[];
}

export interface VolumeChangeInput {
  readonly kind: GuestKind;
  readonly vmid: number;
  readonly node: string;
  /** The config now. */
  readonly config: Readonly<Record<string, string>>;
  readonly change: ConfigChange;
  readonly storages: ReadonlyMap<string, StorageRow>;
  /** Whether the guest runs (or is paused): its volumes are then not detached. */
  readonly running: boolean;
  /** `unlink`'s `force`: a detached volume is destroyed instead of kept as `unusedN`. */
  readonly force?: boolean;
}

/** What a change does to the guest's volumes, and its whole new config. */
export interface VolumeChangePlan {
  readonly config: Record<string, string>;
  /** Keys of the new config whose volumes the agent makes. */
  readonly allocate: string[];
  /** Keys of the config now whose volumes the agent destroys once the new config is written. */
  readonly free: string[];
  /** The storages new volumes go to (`Datastore.AllocateSpace`). */
  readonly storages: Set<string>;
}

/** Whether the change touches a volume: a volume key set or deleted, or an `unusedN` deleted. */
export function touchesVolumes(kind: GuestKind, change: ConfigChange): boolean {
  return [...Object.keys(change.set), ...change.deleted].some((key) => kind.isVolumeKey(key) || isUnusedKey(key));
}

/** PVE's privilege for a volume key: VM.Config.CDROM for a VM's CD-ROM (`media=cdrom`), else VM.Config.Disk. */
export function volumePrivilege(kind: GuestKind, value: string | undefined): Privilege {
  if (kind.type !== 'qemu' || value === undefined) return 'VM.Config.Disk';
  return parseDisk(value).options.get('media') === 'cdrom' ? 'VM.Config.CDROM' : 'VM.Config.Disk';
}

/**
 * Plans a config change that touches volumes, as PVE's config update does it (docs/guests.md
 * "Volumes of an existing guest"). Deletions come first: a disk, root or mount point of the
 * guest's own becomes the next free `unusedN` (with `force`, it is destroyed), a CD-ROM or `none`
 * just goes, and an `unusedN` is destroyed. Then each volume key set: `<storage>:<GiB>` is a new
 * volume, named as a create names it (the one it replaces becomes `unusedN`); the same volume
 * with other options keeps its size (a different `size=` is refused: resize changes it); another
 * volume of this guest is attached (taken from its `unusedN`); a CD-ROM needs an ISO image.
 * Refused: the volume of another guest, a storage without the content, replacing or removing a
 * container's root, and detaching a volume while the guest runs (409).
 */
export function planVolumeChange(input: VolumeChangeInput): VolumeChangePlan {
  const { kind, vmid, node, storages, running, change } = input;
  const config: Record<string, string> = { ...input.config };
  const plan: VolumeChangePlan = { config, allocate: [], free: [], storages: new Set() };
  const reserved = new Set<string>();
  const content = kind.type === 'qemu' ? 'images' : 'rootdir';

  /** The volume at `key` leaves it: kept as unusedN, destroyed, or (a CD-ROM, `none`) just gone. */
  const detach = (key: string) => {
    const value = config[key];
    if (value === undefined) return;
    delete config[key];
    const parsed = parseValue(kind, key, value);
    // A cloud-init drive is the VM's own, but never kept as unusedN: it is generated again when needed.
    const cloudinit = parsed.source.kind === 'volume' && isCloudinitVolname(parsed.source.volname);
    const own = isUnusedKey(key) || cloudinit || ownVolume(parsed);
    if (!own) return;
    if (!isUnusedKey(key) && running)
      throw new ApiError(
        'GUEST_STATE',
        `${kind.noun} ${vmid} is running: ${key} can be detached once it is stopped (Corral does not hot-unplug volumes)`,
      );
    if (isUnusedKey(key) || cloudinit || input.force === true) plan.free.push(key);
    else config[freeUnusedKey((candidate) => candidate in config)] = volumeIdOf(kind, key, value) ?? value;
  };

  for (const key of change.deleted) {
    if (key === 'rootfs') throw badParam('delete', 'the root file system of a container cannot be removed');
    if (kind.isVolumeKey(key) || isUnusedKey(key)) detach(key);
    else delete config[key];
  }

  for (const [key, value] of Object.entries(change.set)) {
    if (!kind.isVolumeKey(key)) {
      config[key] = changedValue(kind, key, value, input.config[key]);
      continue;
    }
    const wanted = parseValue(kind, key, value);
    const { source, options } = wanted;
    const currentValue = config[key];
    const currentVolid = currentValue === undefined ? undefined : volumeIdOf(kind, key, currentValue);
    const cloudinit = kind.type === 'qemu' ? cloudinitDrive(key, wanted, { vmid, node, storages }) : undefined;
    if (cloudinit !== undefined) {
      if (volumeIdOf(kind, key, cloudinit) !== currentVolid) detach(key);
      config[key] = cloudinit;
      continue;
    }
    if (source.kind === 'new') {
      if (key === 'rootfs')
        throw badParam(key, 'the root file system of an existing container cannot be replaced: resize it, or move it with move_volume');
      if (kind.type === 'lxc' && !options.has('mp')) throw badParam(key, 'a mount point needs mp=<path inside the container>');
      usableStorage(storages, source.storage, node, content, key);
      const layout = newVolumeLayout(key, source.size, options);
      const volname = newVolumeName(kind.type, vmid, source.storage, layout.format, { ...input.config, ...config }, reserved);
      reserved.add(`${source.storage}:${volname}`);
      detach(key);
      config[key] = formatVolume({ source: { kind: 'volume', storage: source.storage, volname }, options: layout.options });
      plan.allocate.push(key);
      plan.storages.add(source.storage);
      continue;
    }
    if (source.kind === 'none' || options.get('media') === 'cdrom') {
      if (source.kind === 'volume') {
        usableStorage(storages, source.storage, node, 'iso', key);
        if (!source.volname.startsWith('iso/'))
          throw badParam(key, `'${source.storage}:${source.volname}' is not an ISO image (iso/<file>)`);
      }
      detach(key);
      config[key] = value;
      continue;
    }
    const volid = `${source.storage}:${source.volname}`;
    if (volid === currentVolid) {
      config[key] = withKeptSize(key, wanted, parseValue(kind, key, currentValue ?? ''));
      continue;
    }
    if (key === 'rootfs') throw badParam(key, 'the root file system of an existing container cannot be replaced: move it with move_volume');
    const parsed = parseVolname(source.volname);
    if (parsed === null || parsed.content !== content)
      throw badParam(key, `'${volid}' is not ${kind.type === 'qemu' ? 'a VM disk image' : 'a container volume'} of a directory storage`);
    if (parsed.vmid !== vmid)
      throw badParam(
        key,
        `volume '${volid}' belongs to guest ${parsed.vmid}, not to ${kind.noun} ${vmid} (move_disk or move_volume with target-vmid reassigns it)`,
      );
    usableStorage(storages, source.storage, node, content, key);
    const holder = Object.keys(config).find(
      (other) => other !== key && (kind.isVolumeKey(other) || isUnusedKey(other)) && volumeIdOf(kind, other, config[other] ?? '') === volid,
    );
    if (holder !== undefined && !isUnusedKey(holder)) throw badParam(key, `volume '${volid}' is attached as ${holder} already`);
    if (holder !== undefined) delete config[holder];
    detach(key);
    config[key] = value;
  }

  if (kind.type === 'qemu') refuseSecondDrive(config);
  // A volume attached again in this same change is not destroyed.
  const named = new Set(
    Object.entries(config).map(([key, value]) => (kind.isVolumeKey(key) || isUnusedKey(key) ? volumeIdOf(kind, key, value) : undefined)),
  );
  const free = plan.free.filter((key) => !named.has(volumeIdOf(kind, key, input.config[key] ?? '')));
  return { ...plan, free };
}

/** A volume key's or `unusedN`'s value parsed (the stored config was checked when it was written). */
export function parseValue(kind: GuestKind, key: string, value: string): VolumeValue {
  return kind.type === 'qemu' || isUnusedKey(key) ? parseDisk(value) : parseMount(value);
}

/** The volume id a volume key's or `unusedN`'s value names; undefined for `none`. */
export function volumeIdOf(kind: GuestKind, key: string, value: string): string | undefined {
  const { source } = parseValue(kind, key, value);
  return source.kind === 'volume' ? `${source.storage}:${source.volname}` : undefined;
}

/** A volume of the guest's own (an image or a container volume), not a CD-ROM, an ISO or `none`. */
export function ownVolume(volume: VolumeValue): boolean {
  if (volume.source.kind !== 'volume' || volume.options.get('media') === 'cdrom') return false;
  const content = parseVolname(volume.source.volname)?.content;
  return content === 'images' || content === 'rootdir';
}

/** The same volume with new options: its size stays what the config says (a different `size=` is refused: resize changes it). */
function withKeptSize(key: string, wanted: VolumeValue, current: VolumeValue): string {
  const size = current.options.get('size');
  const given = wanted.options.get('size');
  if (given !== undefined && parseSize(given) !== parseSize(size ?? ''))
    throw badParam(key, `the size of ${key} cannot be changed through the config: use resize (PUT .../resize)`);
  const options = new Map(wanted.options);
  options.delete('size');
  if (size !== undefined) options.set('size', size);
  return formatVolume({ source: wanted.source, options });
}
