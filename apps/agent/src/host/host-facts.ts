import { statfs } from 'node:fs/promises';
import { cpus, uptime } from 'node:os';
import si from 'systeminformation';
import { readHostFile } from './host-files.js';
import type { Host } from './host.js';

/*
 * The host facts that both the inventory report and node.status show, read one way for both.
 * systeminformation measures CPU and memory; the rest comes from Node and the host root directly,
 * because si.time() and si.osInfo() start shells for time zones and release files we do not need.
 */

/**
 * The share of all CPUs busy since the previous call, 0 to 1. systeminformation keeps the previous
 * sample for the whole process, so a node.status between two inventory polls measures since the
 * last poll; the very first call primes the counters and measures over half a second.
 */
export async function readCpuLoad(): Promise<number> {
  const load = await si.currentLoad();
  return Math.min(1, Math.max(0, load.currentLoad / 100));
}

/** Logical CPUs (PVE's `maxcpu` and `cpuinfo.cpus`). */
export function cpuCount(): number {
  return Math.max(1, cpus().length);
}

/** Whole seconds since the host booted. */
export function uptimeSeconds(): number {
  return Math.floor(uptime());
}

export interface CpuInfo {
  readonly model: string;
  readonly sockets: number;
  /** Physical cores of all sockets. */
  readonly cores: number;
  readonly cpus: number;
}

let cpuInfo: Promise<CpuInfo> | undefined;

/** The processors, read once: si.cpu() starts lscpu and the hardware does not change under a running agent. */
export function readCpuInfo(): Promise<CpuInfo> {
  cpuInfo ??= si.cpu().then((cpu) => ({
    // The kernel's own model string (`Intel(R) Xeon(R) E-2236 CPU @ 3.40GHz`), as PVE shows it.
    model: cpus()[0]?.model ?? `${cpu.manufacturer} ${cpu.brand}`,
    sockets: Math.max(1, cpu.processors),
    cores: Math.max(1, cpu.physicalCores),
    cpus: cpuCount(),
  }));
  // A failed read is tried again next time rather than remembered.
  cpuInfo.catch(() => {
    cpuInfo = undefined;
  });
  return cpuInfo;
}

export interface MemoryFacts {
  readonly total: number;
  /** What is not available to new programs: PVE's `used`, so page cache does not count as used. */
  readonly used: number;
  readonly free: number;
  readonly available: number;
}

export async function readMemory(): Promise<MemoryFacts> {
  const memory = await si.mem();
  return { total: memory.total, used: Math.max(0, memory.total - memory.available), free: memory.free, available: memory.available };
}

export interface FilesystemFacts {
  readonly total: number;
  readonly used: number;
  /** total - used, as PVE computes it; includes the blocks reserved for root. */
  readonly free: number;
  /** What an unprivileged writer can still use. */
  readonly avail: number;
}

/** The file system that holds the host root (for a host root of '/', the root file system). */
export async function readRootFilesystem(host: Host): Promise<FilesystemFacts> {
  const fs = await statfs(host.root);
  const total = fs.blocks * fs.bsize;
  const used = (fs.blocks - fs.bfree) * fs.bsize;
  return { total, used, free: total - used, avail: fs.bavail * fs.bsize };
}

/**
 * PRETTY_NAME of the host root's os-release (os-release(5): /etc first, then /usr/lib, default
 * "Linux"), so an agent whose host root is a mounted host names that host's distribution.
 */
export async function readOsName(host: Host): Promise<string> {
  const text = (await readHostFile(host, '/etc/os-release')) ?? (await readHostFile(host, '/usr/lib/os-release')) ?? '';
  const line = text.split('\n').find((candidate) => candidate.startsWith('PRETTY_NAME='));
  if (line === undefined) return 'Linux';
  const value = line.slice('PRETTY_NAME='.length).trim();
  const quoted = /^(["'])(.*)\1$/.exec(value);
  return (quoted?.[2] ?? value).replace(/\\(["'$`\\])/g, '$1') || 'Linux';
}
