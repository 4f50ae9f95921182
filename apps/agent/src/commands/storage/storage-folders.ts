import type { ContentKind, ParamsOf, StorageStatus } from '@corral/protocol';
import { mkdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { activeFolder, missing, type StorageLocation } from '../../drivers/storage-location.js';
import type { Host } from '../../host/host.js';

/** The folder of each content kind below a directory storage's path (PVE's layout; container roots live beside VM images). */
export const CONTENT_FOLDERS: Readonly<Record<ContentKind, string>> = {
  images: 'images',
  rootdir: 'images',
  iso: 'template/iso',
  vztmpl: 'template/cache',
  backup: 'dump',
  snippets: 'snippets',
  import: 'import',
};

/** `storage.activate`: the path and the folders of its content kinds, unless the storage is inactive. */
export async function activate(host: Host, { content, ...location }: ParamsOf<'storage.activate'>): Promise<{ active: boolean }> {
  const folder = await activeFolder(host, location);
  if (folder === null) return { active: false };
  await mkdir(folder, { recursive: true });
  for (const kind of new Set(content.map((each) => CONTENT_FOLDERS[each]))) await mkdir(join(folder, kind), { recursive: true });
  return { active: true };
}

/** `storage.status`: the file system's figures as `df` shows them (PVE's `total`, `used`, `avail`); zero while inactive or missing. */
export async function status(host: Host, location: StorageLocation): Promise<StorageStatus> {
  const folder = await activeFolder(host, location);
  const found = folder === null ? null : await statfs(folder).catch(missing);
  if (found === null) return { active: false, total: 0, used: 0, avail: 0 };
  const { blocks, bfree, bavail, bsize } = found;
  return { active: true, total: blocks * bsize, used: (blocks - bfree) * bsize, avail: bavail * bsize };
}
