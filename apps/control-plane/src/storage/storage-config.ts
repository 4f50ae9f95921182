import { HostFilePath } from '@corral/protocol';
import { configDigest, formatPruneOptions, parsePruneOptions, type PruneOptions, PruneOptionsError } from '@corral/pve-formats';
import type { z } from 'zod';
import { badParam } from '../errors/resource-errors.js';
import { CONTENT_KINDS, StorageRow, type ContentKind } from '../inventory/storage/storage.entity.js';
import type { DELETABLE_SETTINGS, StorageConfigEntry, StorageSettingParams } from './storage.endpoints.js';

type DeletableSetting = (typeof DELETABLE_SETTINGS)[number];

/*
 * Storage definitions as PVE's `storage.cfg` holds them, and the checks of what the API may put
 * there (docs/storage.md): a directory storage's path, its content kinds, its nodes and its
 * retention.
 */

/** PVE's storage types. Corral implements `dir`; the others are refused saying so. */
const PVE_TYPES = [
  'btrfs',
  'cephfs',
  'cifs',
  'dir',
  'esxi',
  'iscsi',
  'iscsidirect',
  'lvm',
  'lvmthin',
  'nfs',
  'pbs',
  'rbd',
  'zfs',
  'zfspool',
];

/** Folders of the host's own system, which no storage may be or lie in; `/var/lib/corral` is Corral's own state (containers, runtime files). */
export const SYSTEM_FOLDERS = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/proc',
  '/run',
  '/sbin',
  '/sys',
  '/usr',
  '/var/lib/corral',
];

/** PVE's default content of a new directory storage. */
const DEFAULT_CONTENT: readonly ContentKind[] = ['images', 'rootdir'];

/** Only `dir` is implemented: any other type of PVE's is a 400 that says so. */
export function storageType(type: string): 'dir' {
  if (type === 'dir') return type;
  throw badParam(
    'type',
    PVE_TYPES.includes(type) ? `storage type '${type}' is not supported by Corral yet: only 'dir' is` : `unknown storage type '${type}'`,
  );
}

/** A directory storage's path: absolute, without `.` or `..`, and none of the host's system folders (SYSTEM_FOLDERS) nor `/`. A trailing `/` is dropped. */
export function storagePathOf(given: string): string {
  const path = given.length > 1 ? given.replace(/\/+$/, '') : given;
  if (path === '/')
    throw badParam('path', "a storage cannot be the root folder '/': give it a folder of its own, such as /srv/<name> or /mnt/<disk>");
  const parsed = HostFilePath.safeParse(path);
  if (!parsed.success) throw badParam('path', `'${given}' ${parsed.error.issues[0]?.message ?? 'is not a path'}`);
  const system = SYSTEM_FOLDERS.find((folder) => path === folder || path.startsWith(`${folder}/`));
  if (system !== undefined)
    throw badParam(
      'path',
      `'${path}' is in the host's system folder ${system}: give the storage a folder of its own, such as /srv/<name> or /mnt/<disk>`,
    );
  return path;
}

/** PVE's comma list of content kinds (`none` for no content); absent: images and rootdir. */
export function contentOf(text: string | undefined): ContentKind[] {
  if (text === undefined) return [...DEFAULT_CONTENT];
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 1 && items[0] === 'none') return [];
  const unknown = items.find((item) => !(CONTENT_KINDS as readonly string[]).includes(item));
  if (unknown !== undefined)
    throw badParam('content', `unknown content kind '${unknown}': the kinds are ${CONTENT_KINDS.join(', ')} (or none)`);
  return CONTENT_KINDS.filter((kind) => items.includes(kind));
}

/** PVE's `prune-backups` property string, read by libs/pve-formats: a 400 naming `prune-backups` when it does not parse or contradicts itself. */
export function pruneOptionsOf(text: string): PruneOptions {
  try {
    return parsePruneOptions(text);
  } catch (error) {
    if (error instanceof PruneOptionsError) throw badParam('prune-backups', error.message);
    throw error;
  }
}

/** A storage's `prune-backups` as it is stored: checked, then written as PVE writes it (keys sorted). Empty: no retention (null). */
export function pruneBackupsOf(text: string): string | null {
  const normalised = formatPruneOptions(pruneOptionsOf(text));
  return normalised === '' ? null : normalised;
}

/** Whether the storage is defined for `node` (its `nodes`, or every node). */
export function availableOn(storage: Pick<StorageRow, 'nodes'>, node: string): boolean {
  return storage.nodes === null || storage.nodes.includes(node);
}

/** The definition as `storage.cfg` lines would hold it, content kinds sorted as PVE writes them. */
export function configOf(storage: StorageRow): Record<string, string> {
  return {
    type: storage.type,
    path: storage.path,
    content: contentText(storage),
    ...(storage.nodes !== null ? { nodes: storage.nodes.join(',') } : {}),
    ...(storage.shared ? { shared: '1' } : {}),
    ...(storage.disable ? { disable: '1' } : {}),
    ...(storage.pruneBackups !== null ? { 'prune-backups': storage.pruneBackups } : {}),
    ...(storage.isMountpoint ? { is_mountpoint: 'yes' } : {}),
  };
}

/** The content kinds as PVE writes them: sorted, comma-separated. */
export function contentText(storage: Pick<StorageRow, 'content'>): string {
  return [...storage.content].sort().join(',');
}

/** PVE's `digest` of one storage's definition, for `digest` in a change. */
export function storageDigest(storage: StorageRow): string {
  return configDigest(configOf(storage));
}

/** What a new directory storage has unless the create says otherwise (PVE's defaults). */
export function newStorage(storage: string, path: string): StorageRow {
  return Object.assign(new StorageRow(), {
    storage,
    type: 'dir',
    path,
    content: [...DEFAULT_CONTENT],
    nodes: null,
    shared: false,
    disable: false,
    pruneBackups: null,
    isMountpoint: false,
  });
}

/**
 * The definition with the settings given (and those in `deleted` back at their defaults). A
 * setting given and deleted at once, or `is_mountpoint` and Corral's `is-rootdir` disagreeing,
 * is a 400.
 */
export function withSettings(storage: StorageRow, given: StorageSettingParams, deleted: readonly DeletableSetting[] = []): StorageRow {
  const both = deleted.find((setting) => given[setting] !== undefined);
  if (both !== undefined) throw badParam('delete', `'${both}' is both given and deleted`);
  const mountpoint = given.is_mountpoint ?? given['is-rootdir'];
  if (given.is_mountpoint !== undefined && given['is-rootdir'] !== undefined && given.is_mountpoint !== given['is-rootdir']) {
    throw badParam('is-rootdir', "is-rootdir is Corral's name for is_mountpoint: give one, or the same value for both");
  }
  const reset = (setting: DeletableSetting) => deleted.includes(setting);
  const defaults = newStorage(storage.storage, storage.path);
  return Object.assign(new StorageRow(), {
    ...storage,
    content: given.content !== undefined ? contentOf(given.content) : reset('content') ? defaults.content : storage.content,
    nodes:
      given.nodes !== undefined
        ? given.nodes.length === 0
          ? null
          : [...new Set(given.nodes)].sort()
        : reset('nodes')
          ? null
          : storage.nodes,
    shared: given.shared ?? (reset('shared') ? false : storage.shared),
    disable: given.disable ?? (reset('disable') ? false : storage.disable),
    pruneBackups:
      given['prune-backups'] !== undefined ? pruneBackupsOf(given['prune-backups']) : reset('prune-backups') ? null : storage.pruneBackups,
    isMountpoint: mountpoint ?? (reset('is_mountpoint') ? false : storage.isMountpoint),
  });
}

/** The definition as `GET /storage/{storage}` shows it: `storage.cfg`'s keys, PVE's 0/1 flags, Corral's `enabled`, and its digest. */
export function configEntry(storage: StorageRow): z.infer<typeof StorageConfigEntry> {
  return {
    storage: storage.storage,
    type: storage.type,
    path: storage.path,
    content: contentText(storage),
    ...(storage.nodes !== null ? { nodes: storage.nodes.join(',') } : {}),
    shared: storage.shared ? 1 : 0,
    ...(storage.disable ? { disable: 1 as const } : {}),
    enabled: storage.disable ? 0 : 1,
    ...(storage.pruneBackups !== null ? { 'prune-backups': storage.pruneBackups } : {}),
    ...(storage.isMountpoint ? { is_mountpoint: 'yes' as const } : {}),
    digest: storageDigest(storage),
  };
}
