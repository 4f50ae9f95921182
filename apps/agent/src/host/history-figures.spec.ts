import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDiskstats, parsePressure, physicalTraffic, readHistoryFigures, readPressure, wholeDisks } from './history-figures.js';

const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 68791673   10212    0    0    0     0          0         0 68791673   10212    0    0    0     0       0          0
  eth0: 1000   11662    0    0    0     0          0         0  200    8557    0    0    0     0       0          0
enp3s0f1: 30   1    0    0    0     0          0         0  4    1    0    0    0     0       0          0
 vmbr0: 5000   1    0    0    0     0          0         0  5000    1    0    0    0     0       0          0
tap100i0: 7000   1    0    0    0     0          0         0  7000    1    0    0    0     0       0          0
`;

const DISKSTATS = ` 254       0 vda 91532 16888 2935034 21530 65771 85962 5389200 40245 0 20900 67711 19359 38 1570632 2999 9476 2935
 254       1 vda1 91000 16888 2900000 21530 65000 85962 5300000 40245 0 20900 67711 19359 38 1570632 2999 9476 2935
   7       0 loop0 2556 0 129568 349 128 160 3940 29 0 212 400 0 0 0 0 36 20
 259       0 nvme0n1 10 0 8 1 1 0 2 0 0 1 1
`;

describe("the node's history figures", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-history-figures-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('counts the traffic of physical network cards only, as PVE does: no loopback, bridge or tap', () => {
    expect(physicalTraffic(NET_DEV)).toEqual({ in: 1030, out: 204 });
  });

  it('counts whole disks only, in bytes of 512-byte sectors', () => {
    expect(parseDiskstats(DISKSTATS, new Set(['vda', 'nvme0n1']))).toEqual({ in: (2935034 + 8) * 512, out: (5389200 + 2) * 512 });
  });

  it('takes the block devices with a device behind them for the whole disks', async () => {
    await mkdir(join(root, 'block/vda/device'), { recursive: true });
    await mkdir(join(root, 'block/loop0'), { recursive: true });
    expect(await wholeDisks(root)).toEqual(new Set(['vda']));
    expect(await wholeDisks(join(root, 'none'))).toEqual(new Set());
  });

  it("reads PSI's 10-second averages as shares, and none where the kernel has no PSI", async () => {
    expect(
      parsePressure('some avg10=1.55 avg60=5.69 avg300=8.60 total=106227911\nfull avg10=0.25 avg60=0.00 avg300=0.00 total=0\n'),
    ).toEqual({
      some: 0.0155,
      full: 0.0025,
    });
    expect(parsePressure('some avg10=3.00 avg60=0.00 avg300=0.00 total=1\n')).toEqual({ some: 0.03, full: 0 });
    expect(await readPressure(root)).toBeUndefined();
    await mkdir(join(root, 'pressure'));
    for (const resource of ['cpu', 'io', 'memory'])
      await writeFile(
        join(root, 'pressure', resource),
        'some avg10=10.00 avg60=0 avg300=0 total=0\nfull avg10=5.00 avg60=0 avg300=0 total=0\n',
      );
    expect(await readPressure(root)).toEqual({ cpusome: 0.1, iosome: 0.1, iofull: 0.05, memorysome: 0.1, memoryfull: 0.05 });
  });

  it("reads this machine's figures, counters never below zero", async () => {
    const figures = await readHistoryFigures();
    for (const field of ['loadavg', 'iowait', 'swap', 'maxswap', 'netin', 'netout', 'diskread', 'diskwrite'] as const)
      expect(figures[field] ?? -1).toBeGreaterThanOrEqual(0);
    expect(figures.swap).toBeLessThanOrEqual(figures.maxswap ?? 0);
  });
});
