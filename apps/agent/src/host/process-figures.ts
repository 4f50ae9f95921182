import { readFile } from 'node:fs/promises';
import { cpuCount } from './host-facts.js';
import { type GuestTraffic, readProcessDisk, readTapNetwork, traffic } from './guest-traffic.js';
import { PROC_ROOT, SYS_ROOT } from './kernel-roots.js';

/*
 * Guest processes as the kernel shows them, for the figures every driver reports (PVE's uptime,
 * mem and cpu). /proc is the running kernel's, not a file under the host root: guests run on this
 * kernel whatever tree of files the agent manages (tests run real QEMU and LXC under a temporary
 * host root). Tests of parsing and arithmetic hand in a `procRoot` of their own.
 */

/** USER_HZ, the unit of /proc's times: 100 on every architecture Linux runs hypervisor hosts on (`getconf CLK_TCK`). */
export const TICKS_PER_SECOND = 100;

export interface ProcStat {
  /** One letter: R, S, D, Z (zombie), ... */
  readonly state: string;
  /** User and system time used so far, in ticks. */
  readonly cpuTicks: number;
  /** When it started, in ticks after the host booted: with the pid, what tells one run of a guest from the next. */
  readonly startTicks: number;
}

/** Parses /proc/<pid>/stat (proc(5)); the name in parentheses may itself hold spaces and parentheses. */
export function parseProcStat(text: string): ProcStat | undefined {
  const nameEnd = text.lastIndexOf(')');
  if (nameEnd < 0) return undefined;
  // From field 3 (state) on: utime is field 14, stime 15, starttime 22.
  const fields = text
    .slice(nameEnd + 2)
    .trim()
    .split(' ');
  const [state, utime, stime, start] = [fields[0], Number(fields[11]), Number(fields[12]), Number(fields[19])];
  if (state === undefined || ![utime, stime, start].every(Number.isInteger)) return undefined;
  return { state, cpuTicks: utime + stime, startTicks: start };
}

/** The resident memory of /proc/<pid>/status in bytes (VmRSS is in KiB); 0 when absent, as for a kernel thread. */
export function parseVmRss(status: string): number {
  const kib = /^VmRSS:\s+([0-9]+) kB$/m.exec(status)?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}

/** Whole seconds since the process started, from the host's uptime in seconds (the first field of /proc/uptime). */
export function processUptime(stat: ProcStat, hostUptimeS: number): number {
  return Number.isFinite(hostUptimeS) ? Math.max(0, Math.floor(hostUptimeS - stat.startTicks / TICKS_PER_SECOND)) : 0;
}

export interface ProcessReading {
  readonly stat: ProcStat;
  /** Whole seconds since it started. */
  readonly uptime: number;
  /** Its resident memory in bytes. */
  readonly mem: number;
}

/** A process's stat, uptime and resident memory, or undefined when it is gone (or went while it was read). */
export async function readProcess(pid: number, procRoot = PROC_ROOT): Promise<ProcessReading | undefined> {
  const read = (file: string) => readFile(`${procRoot}/${file}`, 'utf8');
  let stat: string, status: string, uptime: string;
  try {
    [stat, status, uptime] = await Promise.all([read(`${pid}/stat`), read(`${pid}/status`), read('uptime')]);
  } catch (error) {
    if (isGone(error)) return undefined;
    throw error;
  }
  const parsed = parseProcStat(stat);
  return parsed === undefined
    ? undefined
    : { stat: parsed, uptime: processUptime(parsed, Number.parseFloat(uptime)), mem: parseVmRss(status) };
}

/** Whether reading a process's file under /proc failed because the process is gone (ESRCH: it went while the file was read). */
export function isGone(error: unknown): boolean {
  const { code } = error as NodeJS.ErrnoException;
  return code === 'ENOENT' || code === 'ESRCH';
}

/** CPU use between two readings of each guest, as a fraction of all the host's CPUs (PVE's `cpu`). */
export class CpuMeter {
  private readonly readings = new Map<number, { readonly run: number; readonly busySeconds: number; readonly atMs: number }>();

  constructor(
    private readonly cpus = cpuCount(),
    private readonly now = () => performance.now(),
  ) {}

  /**
   * The share of the host's CPUs that guest `vmid` kept busy since its previous reading, from the
   * CPU seconds it has used so far. `run` tells one run of the guest from the next (its process's
   * start time): 0 at the first reading of a run, when there is nothing to compare with yet.
   */
  measure(vmid: number, run: number, busySeconds: number): number {
    const reading = { run, busySeconds, atMs: this.now() };
    const last = this.readings.get(vmid);
    this.readings.set(vmid, reading);
    if (last === undefined || last.run !== run || reading.atMs <= last.atMs) return 0;
    const fraction = (busySeconds - last.busySeconds) / ((reading.atMs - last.atMs) / 1000) / this.cpus;
    return Math.min(1, Math.max(0, fraction));
  }

  /** Drops the guests that stopped, so a long-lived agent keeps no reading per guest it ever saw. */
  keepOnly(vmids: ReadonlySet<number>): void {
    for (const vmid of this.readings.keys()) if (!vmids.has(vmid)) this.readings.delete(vmid);
  }
}

/** A VM's figures: its traffic is its taps' and its QEMU's block I/O. */
export interface Figures extends GuestTraffic {
  /** Seconds since the guest's process started. */
  readonly uptime: number;
  /** Its resident memory in bytes. */
  readonly mem: number;
  /** The share of all host CPUs it used since the previous read (0 at the first). */
  readonly cpu: number;
}

export interface ProcessFiguresOptions {
  /** Where /proc and /sys are: tests hand in directories of their own. */
  readonly procRoot?: string;
  readonly sysRoot?: string;
  readonly cpus?: number;
  /** A monotonic clock in milliseconds. */
  readonly now?: () => number;
}

/** The figures of guests that are one process each (a VM's QEMU): PVE reads them from /proc so. */
export class ProcessFigures {
  private readonly procRoot: string;
  private readonly sysRoot: string;
  private readonly cpu: CpuMeter;

  constructor({ procRoot = PROC_ROOT, sysRoot = SYS_ROOT, cpus, now }: ProcessFiguresOptions = {}) {
    this.procRoot = procRoot;
    this.sysRoot = sysRoot;
    this.cpu = new CpuMeter(cpus, now);
  }

  /** The figures of guest `vmid`, whose process is `pid`; undefined when that process is gone. */
  async read(vmid: number, pid: number): Promise<Figures | undefined> {
    const reading = await readProcess(pid, this.procRoot);
    if (reading === undefined) return undefined;
    const [network, disk] = await Promise.all([readTapNetwork(vmid, this.sysRoot), readProcessDisk(pid, this.procRoot)]);
    return {
      uptime: reading.uptime,
      mem: reading.mem,
      cpu: this.cpu.measure(vmid, reading.stat.startTicks, reading.stat.cpuTicks / TICKS_PER_SECOND),
      ...traffic(network, disk),
    };
  }

  /** Forgets the guests that no longer run. */
  keepOnly(vmids: ReadonlySet<number>): void {
    this.cpu.keepOnly(vmids);
  }
}
