import { readdir, readFile, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import type { InventoryReport, Pressure } from '@corral/protocol';
import { readIowait, readSwap } from './kernel-figures.js';
import { type Counters, parseNetDev } from './net-dev.js';
import { PROC_ROOT, SYS_ROOT } from './kernel-roots.js';

/*
 * The node's figures that only its history shows: load average, I/O wait, swap, the traffic of its
 * network cards and disks, and the kernel's pressure stall information. Like /proc, /sys is the
 * running kernel's, not a file under the host root. Tests hand in roots of their own.
 */

export type HistoryFigures = Pick<
  InventoryReport,
  'loadavg' | 'iowait' | 'swap' | 'maxswap' | 'netin' | 'netout' | 'diskread' | 'diskwrite' | 'pressure'
>;

/** The kernel's sector, the unit of /proc/diskstats whatever the disk's own. */
const SECTOR_BYTES = 512;

/** The network cards PVE counts as the node's traffic: Ethernet (old and predictable names) and InfiniBand; no bridge, bond, VLAN, tap or veth. */
const PHYSICAL_NIC = /^(?:eth\d+|en[^:.]+|ib[^:.]+)$/;

/** Bytes received and sent by the physical network cards, summed, from /proc/net/dev. */
export function physicalTraffic(text: string): Counters {
  return parseNetDev(text, (name) => PHYSICAL_NIC.test(name));
}

/** Bytes read from and written to `disks`, summed, from /proc/diskstats (sectors read is the sixth field, sectors written the tenth). */
export function parseDiskstats(text: string, disks: ReadonlySet<string>): Counters {
  let read = 0;
  let written = 0;
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (!disks.has(fields[2] ?? '')) continue;
    read += Number(fields[5] ?? 0) * SECTOR_BYTES;
    written += Number(fields[9] ?? 0) * SECTOR_BYTES;
  }
  return { in: read, out: written };
}

/** The whole disks: the block devices with a device behind them (no loop, RAM, zram, device-mapper or RAID device, whose I/O a disk counts already). */
export async function wholeDisks(sysRoot = SYS_ROOT): Promise<Set<string>> {
  const names = await readdir(`${sysRoot}/block`).catch(() => []);
  const found = await Promise.all(
    names.map(async (name) => ((await stat(`${sysRoot}/block/${name}/device`).catch(() => undefined)) ? name : undefined)),
  );
  return new Set(found.filter((name) => name !== undefined));
}

/** The `avg10` of a /proc/pressure file's `some` and `full` lines (percentages there), as shares; `full` is 0 where the kernel writes none. */
export function parsePressure(text: string): { some: number; full: number } {
  const share = (kind: string) => Number(new RegExp(`^${kind} avg10=(\\d+(?:\\.\\d+)?)`, 'm').exec(text)?.[1] ?? 0) / 100;
  return { some: Math.min(1, share('some')), full: Math.min(1, share('full')) };
}

/** PSI of CPU, I/O and memory; undefined where the kernel has none (built without it, or `psi=0`). */
export async function readPressure(procRoot = PROC_ROOT): Promise<Pressure | undefined> {
  try {
    const [cpu, io, memory] = await Promise.all(
      ['cpu', 'io', 'memory'].map(async (resource) => parsePressure(await readFile(`${procRoot}/pressure/${resource}`, 'utf8'))),
    );
    if (cpu === undefined || io === undefined || memory === undefined) return undefined;
    return { cpusome: cpu.some, iosome: io.some, iofull: io.full, memorysome: memory.some, memoryfull: memory.full };
  } catch {
    return undefined;
  }
}

/** Every figure of the node's history that this kernel shows. */
export async function readHistoryFigures(procRoot = PROC_ROOT, sysRoot = SYS_ROOT): Promise<HistoryFigures> {
  const [iowait, swap, netDev, diskstats, disks, pressure] = await Promise.all([
    readIowait(procRoot),
    readSwap(procRoot),
    readFile(`${procRoot}/net/dev`, 'utf8'),
    readFile(`${procRoot}/diskstats`, 'utf8'),
    wholeDisks(sysRoot),
    readPressure(procRoot),
  ]);
  const network = physicalTraffic(netDev);
  const disk = parseDiskstats(diskstats, disks);
  return {
    loadavg: loadavg()[0] ?? 0,
    iowait,
    swap: swap.used,
    maxswap: swap.total,
    netin: network.in,
    netout: network.out,
    diskread: disk.in,
    diskwrite: disk.out,
    ...(pressure !== undefined ? { pressure } : {}),
  };
}
