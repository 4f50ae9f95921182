import { readdir, readFile } from 'node:fs/promises';
import type { GuestRuntime } from '@corral/protocol';
import { type Counters, NO_COUNTERS, parseNetDev } from './net-dev.js';

/*
 * What a guest received and sent on its network cards and read and wrote on its disks, as counters
 * since it started (PVE's netin, netout, diskread, diskwrite, in the guest's sense). Read from the
 * running kernel: a VM's taps and its QEMU's I/O, a container's network namespace and cgroup.
 */

export type GuestTraffic = Required<Pick<GuestRuntime, 'netin' | 'netout' | 'diskread' | 'diskwrite'>>;

/** `read_bytes` and `write_bytes` of /proc/<pid>/io: what the process made the block layer read and write. */
export function parseProcIo(text: string): Counters {
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { in: field('read_bytes'), out: field('write_bytes') };
}

/** Bytes read and written, summed over devices, from a cgroup v2 `io.stat` (`rbytes=`, `wbytes=`). */
export function parseIoStat(text: string): Counters {
  let read = 0;
  let written = 0;
  for (const match of text.matchAll(/\brbytes=(\d+)\b.*?\bwbytes=(\d+)\b/g)) {
    read += Number(match[1]);
    written += Number(match[2]);
  }
  return { in: read, out: written };
}

/** Bytes read and written, summed over devices, from a cgroup v1 `blkio.throttle.io_service_bytes` (`8:0 Read 4096`). */
export function parseBlkioServiceBytes(text: string): Counters {
  let read = 0;
  let written = 0;
  for (const match of text.matchAll(/^\d+:\d+ (Read|Write) (\d+)$/gm)) {
    if (match[1] === 'Read') read += Number(match[2]);
    else written += Number(match[2]);
  }
  return { in: read, out: written };
}

/** The read and written bytes of a VM's QEMU; none once the process is gone. */
export async function readProcessDisk(pid: number, procRoot: string): Promise<Counters> {
  return parseProcIo(await readFile(`${procRoot}/${pid}/io`, 'utf8').catch(() => ''));
}

/**
 * What VM `vmid` received and sent on its taps (`tap<vmid>i<n>`): a tap transmits what the guest
 * receives, as PVE counts it. A card on QEMU's user network has no tap and counts nothing.
 */
export async function readTapNetwork(vmid: number, sysRoot: string): Promise<Counters> {
  const pattern = new RegExp(`^tap${vmid}i\\d+$`);
  const taps = (await readdir(`${sysRoot}/class/net`).catch(() => [])).filter((name) => pattern.test(name));
  const count = async (tap: string, counter: string) =>
    Number((await readFile(`${sysRoot}/class/net/${tap}/statistics/${counter}`, 'utf8').catch(() => '0')).trim()) || 0;
  const each = await Promise.all(taps.map(async (tap) => ({ in: await count(tap, 'tx_bytes'), out: await count(tap, 'rx_bytes') })));
  return each.reduce((sum, tap) => ({ in: sum.in + tap.in, out: sum.out + tap.out }), NO_COUNTERS);
}

/** What the container whose init is `pid` received and sent, from inside its network namespace. */
export async function readNamespaceNetwork(pid: number, procRoot: string): Promise<Counters> {
  return parseNetDev(await readFile(`${procRoot}/${pid}/net/dev`, 'utf8').catch(() => ''), (name) => name !== 'lo');
}

/** The guest's four counters from its network's and its disks'. */
export function traffic(network: Counters, disk: Counters): GuestTraffic {
  return { netin: network.in, netout: network.out, diskread: disk.in, diskwrite: disk.out };
}
