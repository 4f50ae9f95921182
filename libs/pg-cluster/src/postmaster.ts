import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Clears what a killed owner left behind: after a `kill -9` of the control plane its postmaster keeps
 * running (or only its `postmaster.pid` remains), and a new start would fail with "lock file exists".
 * A postmaster whose parent is still a live Node process belongs to another running Corral: refused.
 */
export async function clearStalePostmaster(dir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(dir, 'postmaster.pid');
  const pid = await readPid(pidFile);
  if (pid === null) return;
  if (!(await isPostgres(pid))) {
    await unlink(pidFile).catch(ignoreMissing);
    log(`removed the stale ${pidFile} (process ${pid} is gone)`);
    return;
  }
  const parent = await parentOf(pid);
  if (parent !== null && parent !== process.pid && (await commandOf(parent)).includes('node')) {
    throw new Error(`the PostgreSQL cluster in ${dir} is in use by process ${parent}: is another Corral running with this data dir?`);
  }
  log(`stopping the orphaned PostgreSQL (pid ${pid}) left by an earlier run`);
  await stopPostmaster(pid);
}

/** Fast shutdown (SIGINT), escalating to SIGKILL if it has not exited in time. */
export async function stopPostmaster(pid: number, timeoutMs = 30_000): Promise<void> {
  signal(pid, 'SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      signal(pid, 'SIGKILL');
      return;
    }
    await delay(25);
  }
}

async function readPid(pidFile: string): Promise<number | null> {
  try {
    const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (error) {
    ignoreMissing(error);
    return null;
  }
}

async function isPostgres(pid: number): Promise<boolean> {
  return alive(pid) && (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() === 'postgres';
}

async function parentOf(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Field 4 of /proc/<pid>/stat, after the parenthesised command name (which may hold spaces).
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isInteger(ppid) && ppid > 1 ? ppid : null;
}

async function commandOf(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
