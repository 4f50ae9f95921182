import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseProcStat } from '../host/process-figures.js';
import { PROC_ROOT } from '../host/kernel-roots.js';

/*
 * What the agent tells its fence watchdog (ha/fence-watchdog-main.ts, docs/agents.md "The HA lease"):
 * one JSON line on the watchdog's standard input per lease, with the deadline and how to stop each
 * HA guest without the agent. Argument vectors only: the watchdog runs no shell.
 */

/**
 * How the watchdog stops one guest, as the guest's driver computes it (`GuestDriver.fenceOrder`):
 * SIGKILL to a process, but only while `/proc/<pid>/stat` still shows the same start time (so a pid
 * the kernel gave to another program after the guest died is never killed); SIGKILL to the pid a
 * pid file names at the fence, but only if that process's command line names the pid file (QEMU's
 * `-pidfile`), which covers a guest started after the watchdog was last told; or a program to run.
 */
export const FenceOrder = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('process'), pid: z.int().min(2), startTicks: z.int().min(0) }),
  z.object({ kind: z.literal('pidfile'), path: z.string().regex(/^\/[^\0\n]+$/) }),
  z.object({ kind: z.literal('run'), argv: z.array(z.string().min(1)).min(1).max(64) }),
]);
export type FenceOrder = z.infer<typeof FenceOrder>;

/** One HA guest: `label` for the log (`VM 100`); no `order` when the driver has none (sim) or it did not run when last told. */
export const FencedGuest = z.object({ label: z.string().min(1).max(64), order: FenceOrder.optional() });
export type FencedGuest = z.infer<typeof FencedGuest>;

/**
 * The lease as the watchdog keeps it: `deadlineNs` on CLOCK_MONOTONIC (`process.hrtime.bigint()`,
 * the same clock in every process; a decimal string, as JSON has no bigint). No guests: disarm.
 */
export const WatchdogOrders = z.object({
  deadlineNs: z.string().regex(/^\d{1,20}$/),
  guests: z.array(FencedGuest).max(10_000),
});
export type WatchdogOrders = z.infer<typeof WatchdogOrders>;

/** The order that kills `pid` as it runs now, or undefined when it is gone. */
export async function processOrder(pid: number, procRoot = PROC_ROOT): Promise<FenceOrder | undefined> {
  const startTicks = await startTicksOf(pid, procRoot);
  return startTicks === undefined ? undefined : { kind: 'process', pid, startTicks };
}

/** When `pid` started (ticks after boot), or undefined when there is no such process or it is a zombie. */
export async function startTicksOf(pid: number, procRoot = PROC_ROOT): Promise<number | undefined> {
  const stat = parseProcStat(await readFile(`${procRoot}/${pid}/stat`, 'utf8').catch(() => ''));
  return stat === undefined || stat.state === 'Z' ? undefined : stat.startTicks;
}
