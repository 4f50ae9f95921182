import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROC_ROOT } from '../../../host/kernel-roots.js';

/*
 * QEMU processes as the kernel shows them. /proc is the running kernel's, not a file under the
 * host root: QEMU runs on this kernel whatever the host root is (tests run real QEMU under a
 * temporary one).
 */

const POLL_MS = 100;

/**
 * Whether `pid` is the QEMU that wrote `pidFile`: a qemu-system program (or a migration's
 * qemu-storage-daemon) started with that pid file. So a pid the kernel gave to another program
 * after QEMU died is not taken for it, and a zombie (where PID 1 reaps no orphans, a killed QEMU
 * stays one) has an empty command line.
 */
export async function isQemuOf(pid: number, pidFile: string): Promise<boolean> {
  let cmdline: string;
  try {
    cmdline = await readFile(`${PROC_ROOT}/${pid}/cmdline`, 'utf8');
  } catch {
    return false;
  }
  const args = cmdline.split('\0');
  return /^qemu-(?:system|storage-daemon)/.test(basename(args[0] ?? '')) && args.includes(pidFile);
}

/**
 * Whether `pid` is in the kernel's exit: its memory is gone (an empty command line) but it is not
 * a zombie yet, so it may still hold its files (a VM's disks) open.
 */
export async function exiting(pid: number): Promise<boolean> {
  try {
    const [stat, cmdline] = await Promise.all([readFile(`${PROC_ROOT}/${pid}/stat`, 'utf8'), readFile(`${PROC_ROOT}/${pid}/cmdline`)]);
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return cmdline.length === 0 && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * Waits until the QEMU of `pidFile` (or the process `isOurs` recognises) is gone, polling, and
 * done exiting (a zombie or no process); resolves false when `timeoutMs` passes first. Rejects with
 * the signal's reason when it is aborted.
 */
export async function waitForExit(
  pid: number,
  pidFile: string,
  timeoutMs: number,
  signal?: AbortSignal,
  isOurs = isQemuOf,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await isOurs(pid, pidFile)) && !(await exiting(pid))) return true;
    if (Date.now() >= deadline) return false;
    signal?.throwIfAborted();
    await sleep(POLL_MS);
  }
}
