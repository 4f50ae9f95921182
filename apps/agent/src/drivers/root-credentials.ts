import { constants } from 'node:fs';
import { chown, lstat, mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ParamsOf } from '@corral/protocol';

/** What a container create sets up for root inside the container, as PVE's container setup does. */
export interface RootCredentials {
  /** A SHA-512 crypt hash for root's password. */
  readonly passwordHash?: string;
  /** OpenSSH public keys, one per line. */
  readonly sshPublicKeys?: string;
}

/** What a container create asks to set up for root; undefined when nothing. */
export function rootCredentialsOf({ rootPasswordHash, sshPublicKeys }: ParamsOf<'guest.create'>): RootCredentials | undefined {
  if (rootPasswordHash === undefined && sshPublicKeys === undefined) return undefined;
  return {
    ...(rootPasswordHash !== undefined ? { passwordHash: rootPasswordHash } : {}),
    ...(sshPublicKeys !== undefined ? { sshPublicKeys } : {}),
  };
}

/**
 * Writes root's password hash into the container's `/etc/shadow` (into `/etc/passwd` where the
 * template has no shadow file, as busybox systems keep it) and its keys into
 * `/root/.ssh/authorized_keys`. The root file system comes from a template, so no path inside it
 * is followed through a symbolic link: a link there could point anywhere on the host. New files
 * get the owner of the container's `/root`, which is the container's root also when unprivileged.
 */
export async function writeRootCredentials(rootfs: string, credentials: RootCredentials): Promise<void> {
  if (credentials.passwordHash !== undefined) await setPasswordHash(rootfs, credentials.passwordHash);
  if (credentials.sshPublicKeys !== undefined) await writeAuthorizedKeys(rootfs, credentials.sshPublicKeys);
}

async function setPasswordHash(rootfs: string, hash: string): Promise<void> {
  await realDirectory(join(rootfs, 'etc'));
  const shadow = join(rootfs, 'etc/shadow');
  if (await exists(shadow))
    return rewrite(shadow, (fields) => fields.splice(1, 1, hash), [
      'root',
      hash,
      String(Math.floor(Date.now() / 86_400_000)),
      '0',
      '99999',
      '7',
      '',
      '',
      '',
    ]);
  const passwd = join(rootfs, 'etc/passwd');
  if (!(await exists(passwd))) throw new Error('the container has neither /etc/shadow nor /etc/passwd: its root password cannot be set');
  await rewrite(passwd, (fields) => fields.splice(1, 1, hash), undefined);
}

/** Changes root's line of a colon-separated account file in place, or appends `added` when it has none. */
async function rewrite(file: string, change: (fields: string[]) => void, added: string[] | undefined): Promise<void> {
  await regularFile(file);
  const lines = (await readFile(file, 'utf8')).split('\n');
  const index = lines.findIndex((line) => line.startsWith('root:'));
  if (index >= 0) {
    const fields = (lines[index] as string).split(':');
    change(fields);
    lines[index] = fields.join(':');
  } else if (added !== undefined) {
    lines.splice(lines.at(-1) === '' ? -1 : lines.length, 0, added.join(':'));
  } else {
    throw new Error(`the container's ${file.slice(file.lastIndexOf('/etc/'))} has no root account`);
  }
  await writeNoFollow(file, lines.join('\n'), undefined);
}

async function writeAuthorizedKeys(rootfs: string, keys: string): Promise<void> {
  const home = join(rootfs, 'root');
  await realDirectory(home);
  const owner = await stat(home);
  const ssh = join(home, '.ssh');
  if (!(await exists(ssh))) {
    await mkdir(ssh, { mode: 0o700 });
    await chown(ssh, owner.uid, owner.gid);
  }
  await realDirectory(ssh);
  await writeNoFollow(join(ssh, 'authorized_keys'), keys.endsWith('\n') ? keys : `${keys}\n`, {
    mode: 0o600,
    uid: owner.uid,
    gid: owner.gid,
  });
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

async function realDirectory(path: string): Promise<void> {
  const found = await lstat(path).catch(() => undefined);
  if (found === undefined || !found.isDirectory())
    throw new Error(`the container's ${path} is not a directory (a symbolic link is not followed)`);
}

async function regularFile(path: string): Promise<void> {
  if (!(await lstat(path)).isFile()) throw new Error(`the container's ${path} is not a regular file (a symbolic link is not followed)`);
}

/** Writes a file without following a link at its name; a new file gets `create`'s mode and owner, an existing one keeps its own. */
async function writeNoFollow(path: string, text: string, create: { mode: number; uid: number; gid: number } | undefined): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, create?.mode ?? 0o600);
  try {
    await handle.writeFile(text);
    if (create !== undefined) await handle.chown(create.uid, create.gid);
  } finally {
    await handle.close();
  }
}
