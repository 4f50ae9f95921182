import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { hostPath, type Host } from '../host/host.js';
import { PROC_ROOT } from '../host/kernel-roots.js';

/** The watchdog's entry point as the agent's build emits it (dist/ha/). */
export const WATCHDOG_MAIN = 'fence-watchdog-main.js';

/** Where the node's fence watchdog writes its pid once armed, under the host root. */
export function watchdogPidFile(host: Host): string {
  return hostPath(host, '/run/corral/fence-watchdog.pid');
}

/** Where the watchdog logs (it outlives the agent, whose log may go with it), under the host root. */
export function watchdogLogFile(host: Host): string {
  return hostPath(host, '/var/log/corral/fence-watchdog.log');
}

/** The watchdog's arguments after its script: the host root names the node it guards. */
export function watchdogArguments(host: Host): string[] {
  return ['--host-root', host.root];
}

/** Written whole (a rename), so that a reader never sees half a pid. */
export async function writeWatchdogPid(path: string, pid: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${pid}.tmp`;
  await writeFile(temporary, `${pid}\n`);
  await rename(temporary, path);
}

/** Removed only while it names `pid`: a newer watchdog's file stays. */
export async function removeWatchdogPid(path: string, pid: number): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => '')).trim() === String(pid)) await rm(path, { force: true });
}

/**
 * The pid of the node's running watchdog, from its pid file, or undefined: only when
 * `/proc/<pid>/cmdline` shows the watchdog's script guarding this host root, so a pid the kernel
 * gave to another program after the watchdog exited is never signalled.
 */
export async function runningWatchdog(host: Host, procRoot = PROC_ROOT): Promise<number | undefined> {
  const text = (await readFile(watchdogPidFile(host), 'utf8').catch(() => '')).trim();
  if (!/^\d+$/.test(text)) return undefined;
  const pid = Number(text);
  const args = (await readFile(`${procRoot}/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const expected = watchdogArguments(host);
  const script = args.findIndex((arg) => basename(arg) === WATCHDOG_MAIN);
  return script >= 0 && expected.every((arg, index) => args[script + 1 + index] === arg) ? pid : undefined;
}
