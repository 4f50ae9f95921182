import type { ContentKind, ParamsOf, StorageStatus } from '@corral/protocol';
import { mkdir, stat, statfs } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hostPath, type Host } from '../../host/host.js';

/** Where a directory storage lives: its path on the host, and whether that must be a mounted file system (PVE's `is_mountpoint`). */
export type StorageLocation = Pick<ParamsOf<'storage.status'>, 'path' | 'mountpoint'>;

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

/** The storage's folder under the host root; null while a `mountpoint` storage has nothing mounted there. */
export async function activeFolder(host: Host, location: StorageLocation): Promise<string | null> {
  const folder = hostPath(host, location.path);
  return !location.mountpoint || (await isMountPoint(folder)) ? folder : null;
}

/** The storage's folder, or an error an operator can act on while it is inactive. */
export async function requireActive(host: Host, location: StorageLocation): Promise<string> {
  const folder = await activeFolder(host, location);
  if (folder === null) throw new Error(`storage path ${location.path} is not a mounted file system (is_mountpoint is set): mount it first`);
  return folder;
}

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

/** A folder is the root of a mounted file system when its device differs from its parent's (or it is the root itself). */
async function isMountPoint(folder: string): Promise<boolean> {
  const [own, parent] = await Promise.all([stat(folder).catch(missing), stat(dirname(folder)).catch(missing)]);
  if (own === null || !own.isDirectory() || parent === null) return false;
  return own.dev !== parent.dev || own.ino === parent.ino;
}

/** null for a path that does not exist; other errors stand. */
export function missing(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  throw error;
}
