import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProcIo, readNamespaceNetwork, readProcessDisk, readTapNetwork } from './guest-traffic.js';

describe("a guest's traffic", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-guest-traffic-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("counts a VM's taps the other way round: what a tap transmits, the guest receives", async () => {
    const tap = async (name: string, rx: number, tx: number) => {
      await mkdir(join(root, 'class/net', name, 'statistics'), { recursive: true });
      await writeFile(join(root, 'class/net', name, 'statistics/rx_bytes'), `${rx}\n`);
      await writeFile(join(root, 'class/net', name, 'statistics/tx_bytes'), `${tx}\n`);
    };
    await tap('tap100i0', 10, 1000);
    await tap('tap100i3', 5, 500);
    await tap('tap1000i0', 7, 7);
    expect(await readTapNetwork(100, root)).toEqual({ in: 1500, out: 15 });
    expect(await readTapNetwork(101, root)).toEqual({ in: 0, out: 0 });
  });

  it("reads a process's block I/O, and none for a process that is gone", async () => {
    expect(
      parseProcIo('rchar: 100\nwchar: 200\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n'),
    ).toEqual({
      in: 4096,
      out: 8192,
    });
    expect(await readProcessDisk(2 ** 22 + 1, '/proc')).toEqual({ in: 0, out: 0 });
  });

  it("reads the traffic of this process's network namespace, loopback left out", async () => {
    const own = await readNamespaceNetwork(process.pid, '/proc');
    expect(own.in).toBeGreaterThanOrEqual(0);
    expect(own.out).toBeGreaterThanOrEqual(0);
    expect(await readNamespaceNetwork(2 ** 22 + 1, '/proc')).toEqual({ in: 0, out: 0 });
  });
});
