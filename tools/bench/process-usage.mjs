// CPU time and resident memory of processes, read from /proc (Linux), for the cluster benchmark.
import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** User plus system CPU seconds `pid` used so far. */
export async function cpuSeconds(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on: utime is field 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** Resident memory of `pid` in bytes. */
export async function rssBytes(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** The pids of every process whose command is `name` (the PostgreSQL server's processes: `postgres`). */
export async function pidsNamed(name) {
  const pids = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === name) pids.push(Number(entry));
  }
  return pids;
}

/**
 * The share of one core each group of processes used over `seconds` (1 = a whole core), and each
 * group's resident memory at the end: `groups` maps a name to its pids.
 */
export async function usageOver(groups, seconds) {
  const times = async (pids) => new Map(await Promise.all(pids.map(async (pid) => [pid, await cpuSeconds(pid).catch(() => null)])));
  const before = new Map();
  for (const [name, pids] of groups) before.set(name, await times(pids));
  const startedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const elapsed = (performance.now() - startedAt) / 1000;
  const usage = new Map();
  for (const [name, pids] of groups) {
    const after = await times(pids);
    let cpu = 0;
    let rss = 0;
    // A process that started or ended within the window is left out.
    for (const [pid, start] of before.get(name)) {
      const end = after.get(pid);
      if (start === null || end === null || end === undefined) continue;
      cpu += end - start;
      rss += await rssBytes(pid).catch(() => 0);
    }
    usage.set(name, { cpu: cpu / elapsed, rss });
  }
  return usage;
}
