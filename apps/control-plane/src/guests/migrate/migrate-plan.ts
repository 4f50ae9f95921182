import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { parseVolname, usableStorage } from '../../storage/volumes.js';
import { formatVolume, isUnusedKey, parseDisk, parseMount } from '@corral/pve-formats';
import type { GuestKind } from '../guest-kinds.js';

/** Where each storage's volumes go on the target: to a storage of the same name unless the request says otherwise. */
export interface StorageMapping {
  /** The parameter that named the target storages, for its errors; undefined when none did. */
  readonly param: 'targetstorage' | 'target-storage' | 'storage' | undefined;
  targetOf(storage: string): string;
}

const STORAGE_ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/**
 * The target storages a request asks for: PVE's `targetstorage` (a VM's) or `target-storage` (a
 * container's), a storage-pair-list: `1` keeps each storage, `<id>` sends all to one,
 * `<source>:<target>,...` maps some and an `<id>` among them the rest; or Corral's `storage`
 * (all to one). Not both.
 */
export function storageMapping(params: {
  readonly targetstorage?: string;
  readonly 'target-storage'?: string;
  readonly storage?: string;
}): StorageMapping {
  const { storage } = params;
  const param = params.targetstorage !== undefined ? 'targetstorage' : 'target-storage';
  const pairsText = params.targetstorage ?? params['target-storage'];
  if (pairsText !== undefined && storage !== undefined) throw badParam('storage', `give storage or ${param}, not both`);
  if (storage !== undefined) return { param: 'storage', targetOf: () => storage };
  if (pairsText === undefined) return { param: undefined, targetOf: (source) => source };
  const pairs = new Map<string, string>();
  let fallback: string | undefined;
  for (const entry of pairsText.split(/[,;\s]+/).filter((item) => item !== '')) {
    const [source = '', target, ...rest] = entry.split(':');
    if (target === undefined && entry !== '1') {
      if (!STORAGE_ID.test(source)) throw badParam(param, `'${entry}' is not a storage id`);
      if (fallback !== undefined) throw badParam(param, 'maps the other storages twice');
      fallback = source;
    } else if (target !== undefined) {
      if (rest.length > 0 || !STORAGE_ID.test(source) || !STORAGE_ID.test(target))
        throw badParam(param, `'${entry}' is not a pair <source storage>:<target storage>`);
      if (pairs.has(source)) throw badParam(param, `maps storage '${source}' twice`);
      pairs.set(source, target);
    }
  }
  return { param, targetOf: (source) => pairs.get(source) ?? fallback ?? source };
}

/** What a migration moves, and the config the VM has once on the target. */
export interface MigratePlan {
  /** The disks that move: those whose storage is not shared, or that go to another storage. */
  readonly copy: string[];
  /** The config with each moved disk on its target storage. */
  readonly config: Record<string, string>;
  /** The storages the moved disks go to. */
  readonly storages: ReadonlySet<string>;
}

/** The guest a migration plans for: its id, kind and config. */
export interface PlannedGuest {
  readonly vmid: number;
  readonly kind: GuestKind;
  readonly config: Readonly<Record<string, string>>;
}

/**
 * Plans the migration of a guest to node `target`: each volume (a VM's disks, a container's root
 * file system and mount points) stays (shared storage, same storage) or moves to the storage
 * `mapping` gives, which must hold that kind of volume on the target. Refused (409): a CD-ROM on a
 * storage the target does not share (PVE: "can't migrate local cdrom drive"), and a linked clone,
 * whose base image stays behind.
 */
export function migratePlan(
  guest: PlannedGuest,
  target: string,
  storages: ReadonlyMap<string, StorageRow>,
  mapping: StorageMapping,
): MigratePlan {
  const { vmid, kind, config } = guest;
  const qemu = kind.type === 'qemu';
  const copy: string[] = [];
  const moved: Record<string, string> = { ...config };
  const used = new Set<string>();
  for (const [key, value] of Object.entries(config)) {
    if (!kind.isVolumeKey(key) && !isUnusedKey(key)) continue;
    // An unused volume is a bare volume id, which the disk format reads for either kind.
    const volume = qemu || isUnusedKey(key) ? parseDisk(value) : parseMount(value);
    const { source } = volume;
    if (source.kind !== 'volume') continue;
    const volid = `${source.storage}:${source.volname}`;
    const home = storages.get(source.storage);
    if (home === undefined) throw new ApiError('INTERNAL', `${key}: storage '${source.storage}' of ${kind.noun} ${vmid} does not exist`);
    if (volume.options.get('media') === 'cdrom') {
      if (!home.shared) throw new ApiError('GUEST_STATE', `can't migrate local cdrom drive ${key} (${volid}): eject it first`);
      usableStorage(storages, source.storage, target, 'iso', key);
      continue;
    }
    if (parseVolname(source.volname)?.base !== undefined)
      throw new ApiError(
        'GUEST_STATE',
        `${kind.noun} ${vmid} is a linked clone (${key}: ${volid}): migrating linked clones is not supported yet`,
      );
    const destination = mapping.targetOf(source.storage);
    usableStorage(storages, destination, target, qemu ? 'images' : 'rootdir', mapping.param ?? key);
    if (home.shared && destination === source.storage) continue;
    copy.push(key);
    used.add(destination);
    if (destination !== source.storage) moved[key] = formatVolume({ ...volume, source: { ...source, storage: destination } });
  }
  return { copy, config: moved, storages: used };
}
