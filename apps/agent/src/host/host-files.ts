import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hostPath, type Host } from './host.js';

/** A host file's text, or undefined when it does not exist (a host without resolv.conf has no resolvers, not an error). */
export function readHostFile(host: Host, path: string): Promise<string | undefined> {
  return readFileIfExists(hostPath(host, path));
}

/** A file's text, or undefined when it does not exist. */
export async function readFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Replaces a host file atomically (`writeFileAtomically`): resolv.conf and the interfaces file are read by other programs at any moment. */
export function writeHostFile(host: Host, path: string, text: string, mode = 0o644): Promise<void> {
  return writeFileAtomically(hostPath(host, path), text, mode);
}

/**
 * Replaces a file atomically: a temporary file beside it, synced, then renamed over it, so a crash
 * or a full disk leaves the old file or the new one, never half of one. Keeps the mode of the file
 * it replaces; creates missing directories.
 */
export async function writeFileAtomically(target: string, text: string, mode = 0o644): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const keptMode = await stat(target).then(
    (found) => found.mode & 0o7777,
    () => mode,
  );
  const temporary = join(dirname(target), `.${basename(target)}.corral-${randomBytes(6).toString('hex')}`);
  try {
    const file = await open(temporary, 'wx', keptMode);
    try {
      await file.writeFile(text, 'utf8');
      await file.chmod(keptMode);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Renames one host file over another (the pending interfaces file over the current one). */
export async function renameHostFile(host: Host, from: string, to: string): Promise<void> {
  await rename(hostPath(host, from), hostPath(host, to));
}
