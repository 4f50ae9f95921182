import { ApiError } from '../errors/api-error.js';
import { badParam, notFound } from '../errors/resource-errors.js';
import type { ContentKind, StorageRow } from '../inventory/storage/storage.entity.js';

/*
 * Volumes on directory storages, named as PVE names them: `<vmid>/vm-<vmid>-disk-<n>.<format>`
 * (VM disks), `<template vmid>/<its image>/<vmid>/vm-<vmid>-disk-<n>.qcow2` (a linked clone's
 * disk, an overlay of the template's image), `<vmid>/subvol-<vmid>-disk-<n>` (container roots),
 * `vztmpl/<file>`, `iso/<file>`, `backup/<file>`, `snippets/<file>`, `import/<file>`.
 */

/** Where each kind of volume lives under a directory storage's path. */
const FOLDERS = { vztmpl: 'template/cache', iso: 'template/iso', backup: 'dump', snippets: 'snippets', import: 'import' } as const;

export interface ParsedVolname {
  readonly content: ContentKind;
  /** The owning guest of an image or root file system. */
  readonly vmid?: number;
  /** The path below the storage's path. */
  readonly relative: string;
  /** A linked clone's image: the template's image it is an overlay of. */
  readonly base?: { readonly vmid: number; readonly relative: string };
}

/** What a volume name on a directory storage refers to; null when it is not one. */
export function parseVolname(volname: string): ParsedVolname | null {
  // PVE's name of a linked clone's disk: `<template vmid>/<its image>/<vmid>/<image>`.
  const linked = /^(\d+)\/((?:vm|base)-\1-disk-\d+\.qcow2)\/(\d+)\/(vm-\3-disk-\d+\.qcow2)$/.exec(volname);
  if (linked) {
    const [, baseVmid = '', baseFile = '', vmid = '', file = ''] = linked;
    return {
      content: 'images',
      vmid: Number(vmid),
      relative: `images/${vmid}/${file}`,
      base: { vmid: Number(baseVmid), relative: `images/${baseVmid}/${baseFile}` },
    };
  }
  const guest = /^(\d+)\/((?:vm|base|subvol|basevol)-\1-disk-\d+(?:\.(?:qcow2|raw))?|vm-\1-cloudinit\.(?:qcow2|raw))$/.exec(volname);
  if (guest) {
    const [, vmid = '', file = ''] = guest;
    return {
      content: file.startsWith('subvol') || file.startsWith('basevol') ? 'rootdir' : 'images',
      vmid: Number(vmid),
      relative: `images/${vmid}/${file}`,
    };
  }
  const other = /^(vztmpl|iso|backup|snippets|import)\/([A-Za-z0-9_.+-]+)$/.exec(volname);
  if (other) {
    const [, kind = '', file = ''] = other;
    return { content: kind as ContentKind, relative: `${FOLDERS[kind as keyof typeof FOLDERS]}/${file}` };
  }
  return null;
}

/** The guest a backup volume (`backup/vzdump-qemu-100-....vma.zst`) is of; undefined for anything else. */
export function backupOwner(volname: string): number | undefined {
  const owner = /^backup\/vzdump-(?:qemu|lxc)-(\d+)-/.exec(volname)?.[1];
  return owner === undefined ? undefined : Number(owner);
}

/** A volume named by its id (`local:iso/x.iso`) or by its name on `storage` (`iso/x.iso`): its name; a 400 naming `param` for another storage's id. */
export function volnameOn(storage: string, volume: string, param: string): string {
  const colon = volume.indexOf(':');
  if (colon < 0) return volume;
  if (volume.slice(0, colon) !== storage) throw badParam(param, `volume '${volume}' is not on storage '${storage}'`);
  return volume.slice(colon + 1);
}

export function volumePath(storage: StorageRow, volname: string): string {
  const parsed = parseVolname(volname);
  if (!parsed) throw new ApiError('INTERNAL', `'${storage.storage}:${volname}' is not a volume name of a directory storage`);
  return storagePath(storage, parsed.relative);
}

/** A path below a directory storage's path. */
export function storagePath(storage: StorageRow, relative: string): string {
  return `${storage.path.replace(/\/+$/, '')}/${relative}`;
}

/**
 * A storage a guest on `node` may use for `content`: it exists (else 404), is enabled and
 * available on that node, and holds that kind of content (else 400 naming `param`).
 */
export function usableStorage(
  storages: ReadonlyMap<string, StorageRow>,
  id: string,
  node: string,
  content: ContentKind,
  param: string,
): StorageRow {
  const storage = storages.get(id);
  if (!storage) throw notFound(`storage '${id}'`);
  if (storage.disable) throw badParam(param, `storage '${id}' is disabled`);
  if (storage.nodes !== null && !storage.nodes.includes(node)) throw badParam(param, `storage '${id}' is not available on node '${node}'`);
  if (!storage.content.includes(content))
    throw badParam(param, `storage '${id}' does not hold ${CONTENT_NAMES[content]} (content '${content}')`);
  return storage;
}

const CONTENT_NAMES: Record<ContentKind, string> = {
  images: 'VM disks',
  rootdir: 'container volumes',
  vztmpl: 'container templates',
  iso: 'ISO images',
  backup: 'backups',
  snippets: 'snippets',
  import: 'disk images to import',
};
