import type { ContentKind, ParamsOf, StorageVolume } from '@corral/protocol';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { missing, requireActive } from '../../drivers/storage-location.js';
import type { Host } from '../../host/host.js';
import { readQcow2Header } from './qcow2-header.js';
import { CONTENT_FOLDERS } from './storage-folders.js';

/*
 * A directory storage's volumes, read from its files and named as PVE names them:
 * `images/<vmid>/<disk>` is `<vmid>/<disk>` (a linked clone's overlay `<base vmid>/<base>/<vmid>/<disk>`),
 * `template/iso/<file>` is `iso/<file>`, `template/cache/<file>` `vztmpl/<file>`, `dump/<file>`
 * `backup/<file>`, `snippets/<file>` `snippets/<file>`, `import/<file>` `import/<file>`. Hidden files (uploads under way) and names
 * no volume has are left out.
 */

/** A name a volume id can carry (the protocol's `VolumeFile`). */
const FILE_NAME = /^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$/;
const ISO = /\.(?:iso|img)$/i;
/** Disk images and appliances to import (PVE's `import` content): the format is the extension. */
const IMPORTABLE = /\.(ova|ovf|qcow2|raw|vmdk)$/;
/** Container templates: a tar archive, compressed or not; PVE's format is `t` + the compressor (`tzst`), or `tar`. */
const TEMPLATE = /\.(?:tar(?:\.(gz|xz|zst|bz2))?|(tgz))$/;
/** vzdump's archive names: the guest's kind and id, the local time it was made, the archive format. */
const BACKUP = /^vzdump-(qemu|lxc)-(\d+)-(\d{4})_(\d{2})_(\d{2})-(\d{2})_(\d{2})_(\d{2})\.(tgz|(?:tar|vma)(?:\.(?:gz|lzo|zst))?)$/;
const DISK = /^(vm|base|subvol|basevol)-(\d+)-disk-\d+(?:\.(qcow2|raw))?$/;
/** A linked clone's backing file: a template's image in the same storage's `images/`. */
const BASE_IMAGE = /\/images\/(\d+)\/(base-\1-disk-\d+\.qcow2)$/;

type Found = Omit<StorageVolume, 'volid'> & { readonly volname: string };

/** `storage.content`: the volumes of the asked kinds (of one guest with `vmid`), sorted by volume id. */
export async function listContent(
  host: Host,
  { storage, content, vmid, ...location }: ParamsOf<'storage.content'>,
): Promise<StorageVolume[]> {
  const folder = await requireActive(host, location);
  const kinds = new Set<ContentKind>(content);
  const found: Found[] = [];
  if (kinds.has('images') || kinds.has('rootdir'))
    found.push(...(await images(join(folder, CONTENT_FOLDERS.images), vmid)).filter((volume) => kinds.has(volume.content)));
  if (vmid === undefined) {
    if (kinds.has('iso')) found.push(...(await files(folder, 'iso', (name) => (ISO.test(name) ? { format: 'iso' } : null))));
    if (kinds.has('vztmpl')) found.push(...(await files(folder, 'vztmpl', templateFormat)));
    if (kinds.has('snippets')) found.push(...(await files(folder, 'snippets', () => ({ format: 'snippet' }))));
    if (kinds.has('import')) found.push(...(await files(folder, 'import', importFormat)));
  }
  if (kinds.has('backup')) found.push(...(await backups(join(folder, CONTENT_FOLDERS.backup), vmid)));
  return found
    .map(({ volname, ...volume }) => ({ volid: `${storage}:${volname}`, ...volume }))
    .sort((a, b) => a.volid.localeCompare(b.volid));
}

function templateFormat(name: string): { format: string } | null {
  const match = TEMPLATE.exec(name);
  if (!match) return null;
  const [, compressor, tgz] = match;
  return { format: tgz ?? (compressor === undefined ? 'tar' : `t${compressor}`) };
}

function importFormat(name: string): { format: string } | null {
  const format = IMPORTABLE.exec(name)?.[1];
  return format === undefined ? null : { format };
}

/** The regular files of a kind's folder that `accept` gives a format, with their size and modification time. */
async function files(
  folder: string,
  kind: 'iso' | 'vztmpl' | 'snippets' | 'import',
  accept: (name: string) => { format: string } | null,
): Promise<Found[]> {
  const dir = join(folder, CONTENT_FOLDERS[kind]);
  const found: Found[] = [];
  for (const name of await namesIn(dir)) {
    const format = accept(name);
    const stats = format && (await lstat(join(dir, name)).catch(missing));
    if (format && stats?.isFile())
      found.push({
        volname: `${kind}/${name}`,
        content: kind,
        format: format.format,
        size: stats.size,
        ctime: Math.floor(stats.mtimeMs / 1000),
      });
  }
  return found;
}

/** vzdump archives, their time from their name, with their notes and protection beside them (`<file>.notes`, `<file>.protected`). */
async function backups(dir: string, vmid: number | undefined): Promise<Found[]> {
  const names = new Set(await namesIn(dir));
  const found: Found[] = [];
  for (const name of names) {
    const match = BACKUP.exec(name);
    if (!match) continue;
    const [, subtype = '', owner = '', year, month, day, hour, minute, second, format = ''] = match;
    if (vmid !== undefined && Number(owner) !== vmid) continue;
    const stats = await lstat(join(dir, name)).catch(missing);
    if (!stats?.isFile()) continue;
    const ctime = new Date(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)).getTime() / 1000;
    const notes = names.has(`${name}.notes`) ? await readFile(join(dir, `${name}.notes`), 'utf8').catch(missing) : null;
    found.push({
      volname: `backup/${name}`,
      content: 'backup',
      format,
      size: stats.size,
      ctime,
      vmid: Number(owner),
      subtype: subtype === 'qemu' ? 'qemu' : 'lxc',
      ...(notes !== null ? { notes: notes.trim() } : {}),
      ...(names.has(`${name}.protected`) ? { protected: true } : {}),
    });
  }
  return found;
}

/** Guest images and container roots in `images/<vmid>/`: a qcow2 image's virtual size from its header, a root folder's size 0 (as PVE). */
async function images(dir: string, vmid: number | undefined): Promise<Found[]> {
  const owners = (await namesIn(dir)).filter((name) => /^\d+$/.test(name) && (vmid === undefined || Number(name) === vmid));
  const found: Found[] = [];
  for (const owner of owners) {
    for (const name of await namesIn(join(dir, owner))) {
      const match = DISK.exec(name);
      if (!match || match[2] !== owner) continue;
      const path = join(dir, owner, name);
      const stats = await lstat(path).catch(missing);
      if (stats === null) continue;
      const [, prefix = '', , format] = match;
      const ctime = Math.floor(stats.mtimeMs / 1000);
      const common = { vmid: Number(owner), ctime };
      if (stats.isDirectory() && prefix.endsWith('vol'))
        found.push({ volname: `${owner}/${name}`, content: 'rootdir', format: 'subvol', size: 0, ...common });
      if (!stats.isFile() || format === undefined) continue;
      const used = stats.blocks * 512;
      const header = format === 'qcow2' ? await readQcow2Header(path) : null;
      const base = header?.backingFile === undefined ? null : BASE_IMAGE.exec(header.backingFile);
      const volname = base ? `${base[1] ?? ''}/${base[2] ?? ''}/${owner}/${name}` : `${owner}/${name}`;
      found.push({
        volname,
        content: prefix.endsWith('vol') ? 'rootdir' : 'images',
        format,
        size: header?.size ?? stats.size,
        used,
        ...common,
      });
    }
  }
  return found;
}

/** The names in a folder that a volume id can carry; none when it does not exist. */
async function namesIn(dir: string): Promise<string[]> {
  return ((await readdir(dir).catch(missing)) ?? []).filter((name) => FILE_NAME.test(name));
}
