import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../storage/storage.entity.js';
import { parseVolname, usableStorage } from '../../storage/volumes.js';
import { formatVolume, parseDisk } from '../formats/devices.js';
import { isQemuVolumeKey } from '../formats/qemu-keys.js';
import { isUnusedKey } from '../formats/unused-keys.js';

/** Where each storage's volumes go on the target: to a storage of the same name unless the request says otherwise. */
export interface StorageMapping {
  /** The parameter that named the target storages, for its errors; undefined when none did. */
  readonly param: 'targetstorage' | 'storage' | undefined;
  targetOf(storage: string): string;
}

const STORAGE_ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/**
 * The target storages a request asks for: PVE's `targetstorage` (a storage-pair-list: `1` keeps
 * each storage, `<id>` sends all to one, `<source>:<target>,...` maps some and an `<id>` among them
 * the rest), or the spec's `storage` (all to one). Not both.
 */
export function storageMapping(params: { readonly targetstorage?: string; readonly storage?: string }): StorageMapping {
  const { targetstorage, storage } = params;
  if (targetstorage !== undefined && storage !== undefined) throw badParam('storage', 'give storage or targetstorage, not both');
  if (storage !== undefined) return { param: 'storage', targetOf: () => storage };
  if (targetstorage === undefined) return { param: undefined, targetOf: (source) => source };
  const pairs = new Map<string, string>();
  let fallback: string | undefined;
  for (const entry of targetstorage.split(/[,;\s]+/).filter((item) => item !== '')) {
    const [source = '', target, ...rest] = entry.split(':');
    if (target === undefined && entry !== '1') {
      if (!STORAGE_ID.test(source)) throw badParam('targetstorage', `'${entry}' is not a storage id`);
      if (fallback !== undefined) throw badParam('targetstorage', 'maps the other storages twice');
      fallback = source;
    } else if (target !== undefined) {
      if (rest.length > 0 || !STORAGE_ID.test(source) || !STORAGE_ID.test(target)) throw badParam('targetstorage', `'${entry}' is not a pair <source storage>:<target storage>`);
      if (pairs.has(source)) throw badParam('targetstorage', `maps storage '${source}' twice`);
      pairs.set(source, target);
    }
  }
  return { param: 'targetstorage', targetOf: (source) => pairs.get(source) ?? fallback ?? source };
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

/**
 * Plans the migration of VM `vmid` with `config` to node `target`: each disk stays (shared storage,
 * same storage) or moves to the storage `mapping` gives, which must hold VM disks on the target.
 * Refused (409): a CD-ROM on a storage the target does not share (PVE: "can't migrate local cdrom
 * drive"), and a linked clone, whose base image stays behind.
 */
export function migratePlan(vmid: number, config: Readonly<Record<string, string>>, target: string, storages: ReadonlyMap<string, StorageRow>, mapping: StorageMapping): MigratePlan {
  const copy: string[] = [];
  const moved: Record<string, string> = { ...config };
  const used = new Set<string>();
  for (const [key, value] of Object.entries(config)) {
    if (!isQemuVolumeKey(key) && !isUnusedKey(key)) continue;
    const disk = parseDisk(value);
    const { source } = disk;
    if (source.kind !== 'volume') continue;
    const volid = `${source.storage}:${source.volname}`;
    const home = storages.get(source.storage);
    if (home === undefined) throw new ApiError('INTERNAL', `${key}: storage '${source.storage}' of VM ${vmid} does not exist`);
    if (disk.options.get('media') === 'cdrom') {
      if (!home.shared) throw new ApiError('GUEST_STATE', `can't migrate local cdrom drive ${key} (${volid}): eject it first`);
      usableStorage(storages, source.storage, target, 'iso', key);
      continue;
    }
    if (parseVolname(source.volname)?.base !== undefined) throw new ApiError('GUEST_STATE', `VM ${vmid} is a linked clone (${key}: ${volid}): migrating linked clones is not supported yet`);
    const destination = mapping.targetOf(source.storage);
    usableStorage(storages, destination, target, 'images', mapping.param ?? key);
    if (home.shared && destination === source.storage) continue;
    copy.push(key);
    used.add(destination);
    if (destination !== source.storage) moved[key] = formatVolume({ ...disk, source: { ...source, storage: destination } });
  }
  return { copy, config: moved, storages: used };
}
