import type { ParamsOf } from '@corral/protocol';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hostPath, type Host } from '../host/host.js';

/** Where a directory storage lives: its path on the host, and whether that must be a mounted file system (PVE's `is_mountpoint`). */
export type StorageLocation = Pick<ParamsOf<'storage.status'>, 'path' | 'mountpoint'>;

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
