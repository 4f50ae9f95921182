import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * The host the agent manages. `root` is the host root under which every host file is resolved
 * (default '/'); `live` is true only when root is '/', and only then does the agent change the
 * running system beyond files (nft load, ifreload).
 */
export interface Host {
  readonly root: string;
  readonly live: boolean;
}

/** Resolves the host root to an absolute real path; a root elsewhere than '/' is a tree of files only (tests, a mounted image). */
export async function openHost(root: string): Promise<Host> {
  let real: string;
  try {
    real = await realpath(resolve(root));
  } catch (error) {
    throw new Error(`host root '${root}' does not exist: ${(error as Error).message}`);
  }
  if (!(await stat(real)).isDirectory()) throw new Error(`host root '${root}' is not a directory`);
  return Object.freeze({ root: real, live: real === '/' });
}

/**
 * A host file's path under the host root: '/etc/resolv.conf' becomes '<root>/etc/resolv.conf'.
 * The check is lexical: a path with `..` that leaves the root is refused; symbolic links inside
 * the tree are the tree's business (a rename replaces the link, it does not follow it).
 */
export function hostPath(host: Host, path: string): string {
  if (!isAbsolute(path)) throw new Error(`host path '${path}' must be absolute`);
  const full = join(host.root, path);
  const inside = relative(host.root, full);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) throw new Error(`host path '${path}' leaves the host root`);
  return full;
}
