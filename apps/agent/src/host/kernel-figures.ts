import { readFile, stat } from 'node:fs/promises';
import { PROC_ROOT, SYS_ROOT } from './kernel-roots.js';

/*
 * The running kernel's figures that PVE's node status shows beyond the inventory's: I/O wait,
 * swap, memory shared by KSM, the processor's clock and flags, and the boot firmware. Like /proc,
 * /sys is the running kernel's, not a file under the host root. Tests hand in roots of their own.
 */

/** The page size KSM's page counts are in: 4 KiB on x86-64 and on the usual arm64 kernels (PVE counts 4 KiB too). */
const PAGE_BYTES = 4096;

/** EFI's global variable GUID, under which the firmware keeps `SecureBoot`. */
const SECURE_BOOT_VARIABLE = 'firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c';

export interface CpuTimes {
  readonly total: number;
  readonly iowait: number;
}

/** The first (`cpu`, all processors) line of /proc/stat: every field summed, and iowait (the fifth). */
export function parseCpuTimes(procStat: string): CpuTimes | undefined {
  const line = procStat.split('\n').find((candidate) => candidate.startsWith('cpu '));
  const fields = line?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  if (fields.length < 5 || !fields.every(Number.isFinite)) return undefined;
  // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { total, iowait: fields[4] ?? 0 };
}

/** The share of `now - before` spent waiting for I/O, 0 to 1 (0 when no time passed). */
export function iowaitShare(before: CpuTimes | undefined, now: CpuTimes): number {
  const total = now.total - (before?.total ?? 0);
  const iowait = now.iowait - (before?.iowait ?? 0);
  return total > 0 ? Math.min(1, Math.max(0, iowait / total)) : 0;
}

let lastTimes: CpuTimes | undefined;

/** I/O wait since the previous call (the first call: since boot), as PVE measures it between two reads. */
export async function readIowait(procRoot = PROC_ROOT): Promise<number> {
  const now = parseCpuTimes(await readFile(`${procRoot}/stat`, 'utf8'));
  if (!now) return 0;
  const share = iowaitShare(lastTimes, now);
  lastTimes = now;
  return share;
}

export interface SwapFigures {
  readonly total: number;
  readonly used: number;
  readonly free: number;
}

/** SwapTotal and SwapFree of /proc/meminfo (in KiB there), in bytes. */
export function parseSwap(meminfo: string): SwapFigures {
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(meminfo)?.[1] ?? 0) * 1024;
  const total = kib('SwapTotal');
  const free = Math.min(total, kib('SwapFree'));
  return { total, used: total - free, free };
}

export async function readSwap(procRoot = PROC_ROOT): Promise<SwapFigures> {
  return parseSwap(await readFile(`${procRoot}/meminfo`, 'utf8'));
}

/** Bytes KSM saves by sharing pages (pages_sharing); 0 where the kernel has no KSM. */
export async function readKsmShared(sysRoot = SYS_ROOT): Promise<number> {
  const text = await readFile(`${sysRoot}/kernel/mm/ksm/pages_sharing`, 'utf8').catch(() => '0');
  const pages = Number(text.trim());
  return Number.isInteger(pages) && pages > 0 ? pages * PAGE_BYTES : 0;
}

export interface ProcessorLines {
  /** `cpu MHz` as the kernel writes it (`3400.000`), when it writes one. */
  readonly mhz?: string;
  /** The `flags` line, '' when there is none (arm64 calls its list `Features`). */
  readonly flags: string;
}

/** The first processor's `cpu MHz` and `flags` lines of /proc/cpuinfo. */
export function parseProcessorLines(cpuinfo: string): ProcessorLines {
  const mhz = /^cpu MHz\s*:\s*(\d+(?:\.\d+)?)\s*$/m.exec(cpuinfo)?.[1];
  const flags = /^flags\s*:[ \t]*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? '';
  return mhz === undefined ? { flags } : { mhz, flags };
}

export async function readProcessorLines(procRoot = PROC_ROOT): Promise<ProcessorLines> {
  return parseProcessorLines(await readFile(`${procRoot}/cpuinfo`, 'utf8'));
}

export interface BootFigures {
  readonly efi: boolean;
  /** EFI only, when the firmware has the variable: whether Secure Boot is on. */
  readonly secureboot?: boolean;
}

/** EFI when the kernel shows /sys/firmware/efi; Secure Boot from the last byte of the firmware's `SecureBoot` variable. */
export async function readBoot(sysRoot = SYS_ROOT): Promise<BootFigures> {
  const efi = (await stat(`${sysRoot}/firmware/efi`).catch(() => undefined))?.isDirectory() === true;
  if (!efi) return { efi };
  const variable = await readFile(`${sysRoot}/${SECURE_BOOT_VARIABLE}`).catch(() => undefined);
  const last = variable?.at(-1);
  return last === undefined ? { efi } : { efi, secureboot: last === 1 };
}
