import { readFile } from 'node:fs/promises';
import { type GuestTraffic, parseBlkioServiceBytes, parseIoStat, readNamespaceNetwork, traffic } from '../../../host/guest-traffic.js';
import type { Counters } from '../../../host/net-dev.js';
import { isGone, readProcess } from '../../../host/process-figures.js';
import { PROC_ROOT } from '../../../host/kernel-roots.js';

/*
 * What a running container uses: its uptime is its init's, read from the running kernel's /proc;
 * its memory, CPU time and disk I/O are its cgroup's, all its processes together, and its network
 * traffic its network namespace's (not under the agent's host root: the containers run on this
 * kernel, whatever tree of files the agent manages).
 */

const CGROUP_ROOT = '/sys/fs/cgroup';

export interface ContainerUsage {
  /** Seconds since its init started. */
  readonly uptime: number;
  /** When its init started, in ticks after the host booted: what tells one run of the container from the next. */
  readonly startTicks: number;
  /** Bytes charged to its cgroup (page cache included). */
  readonly mem: number;
  /** CPU time its cgroup has used, in seconds. */
  readonly cpuSeconds: number;
  readonly traffic: GuestTraffic;
}

/** The usage of the container whose init is `pid`, or undefined when it is gone meanwhile. */
export async function readContainerUsage(pid: number): Promise<ContainerUsage | undefined> {
  try {
    const [init, cgroups] = await Promise.all([readProcess(pid), readFile(`${PROC_ROOT}/${pid}/cgroup`, 'utf8')]);
    if (init === undefined) return undefined;
    const files = cgroupFiles(parseProcCgroup(cgroups));
    const [mem, cpu, io, network] = await Promise.all([
      readFile(files.memory, 'utf8'),
      readFile(files.cpu, 'utf8'),
      // A kernel without the I/O controller counts no disk traffic.
      readFile(files.io, 'utf8').catch(() => ''),
      readNamespaceNetwork(pid, PROC_ROOT),
    ]);
    return {
      uptime: init.uptime,
      startTicks: init.stat.startTicks,
      mem: Number.parseInt(mem, 10) || 0,
      cpuSeconds: files.cpuNs(cpu) / 1e9,
      traffic: traffic(network, files.ioBytes(io)),
    };
  } catch (error) {
    if (isGone(error)) return undefined;
    throw error;
  }
}

/** `/proc/<pid>/cgroup` as controller → path; the v2 hierarchy's line (`0::/path`) is under ''. */
export function parseProcCgroup(text: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (match === null) continue;
    const [, controllers = '', path = ''] = match;
    for (const controller of controllers.split(',')) paths.set(controller, path);
  }
  return paths;
}

interface CgroupFiles {
  readonly memory: string;
  readonly cpu: string;
  readonly cpuNs: (text: string) => number;
  readonly io: string;
  readonly ioBytes: (text: string) => Counters;
}

/**
 * Where the memory, CPU and I/O counters of a process's cgroups are: the v1 controllers where the host
 * mounts them (`/sys/fs/cgroup/<controller>`, also on hybrid hosts), else the v2 hierarchy.
 */
export function cgroupFiles(paths: ReadonlyMap<string, string>): CgroupFiles {
  const memory = paths.get('memory');
  const cpuacct = paths.get('cpuacct');
  const blkio = paths.get('blkio');
  const unified = `${CGROUP_ROOT}${paths.get('') ?? '/'}`;
  return {
    memory: memory === undefined ? `${unified}/memory.current` : `${CGROUP_ROOT}/memory${memory}/memory.usage_in_bytes`,
    cpu: cpuacct === undefined ? `${unified}/cpu.stat` : `${CGROUP_ROOT}/cpuacct${cpuacct}/cpuacct.usage`,
    cpuNs:
      cpuacct === undefined
        ? (text) => Number(/^usage_usec (\d+)$/m.exec(text)?.[1] ?? 0) * 1000
        : (text) => Number.parseInt(text, 10) || 0,
    io: blkio === undefined ? `${unified}/io.stat` : `${CGROUP_ROOT}/blkio${blkio}/blkio.throttle.io_service_bytes`,
    ioBytes: blkio === undefined ? parseIoStat : parseBlkioServiceBytes,
  };
}
