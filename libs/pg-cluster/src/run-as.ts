import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The identity the server runs as: PostgreSQL refuses to run as root. */
export interface ServerUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

const SERVER_USER = 'postgres';

/** `null` when not root: the server then runs as the current user. As root, the `postgres` system user (created if missing). */
export async function serverUser(): Promise<ServerUser | null> {
  if (process.getuid?.() !== 0) return null;
  const found = await lookupUser(SERVER_USER);
  if (found) return found;
  await run('useradd', ['--system', '--user-group', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SERVER_USER]);
  const created = await lookupUser(SERVER_USER);
  if (!created) throw new Error(`could not create the system user '${SERVER_USER}' for the embedded PostgreSQL`);
  return created;
}

async function lookupUser(name: string): Promise<ServerUser | null> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return null;
  }
}

/**
 * Fails with a clear message when `user` cannot traverse to `path`: a checkout or data dir under a
 * 0700 folder such as /root is the usual cause, and the server would otherwise die with a bare EACCES.
 */
export async function assertReachable(path: string, user: ServerUser): Promise<void> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const traversable =
      info.uid === user.uid ? (info.mode & 0o100) !== 0 : info.gid === user.gid ? (info.mode & 0o010) !== 0 : (info.mode & 0o001) !== 0;
    if (!traversable) {
      throw new Error(
        `the embedded PostgreSQL runs as user '${user.name}', which cannot reach ${path}: ${dir} is mode ${(info.mode & 0o777).toString(8)}; ` +
          `move the checkout and data dir (CORRAL_DATA_DIR) out of it, or set DATABASE_URL`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}
