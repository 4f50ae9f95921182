import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuMeter, parseProcStat, parseVmRss, ProcessFigures, processUptime, readProcess } from './process-figures.js';

/** /proc/<pid>/stat of a QEMU: utime 1500, stime 500, started 123456 ticks after boot. */
const STAT =
  '4242 (qemu-system-x86) S 1 4240 4240 0 -1 4194560 4466 0 0 0 1500 500 0 0 20 0 3 0 123456 1234567168 11264 18446744073709551615 1 1 0 0 0 0 0 4096 16963 0 0 0 17 1 0 0 0 0 0';
/** A pid above the kernel's limit (2^22): no process has it. */
const NO_PID = 2 ** 22 + 1;

describe('parseProcStat', () => {
  it('reads the state, the CPU time used and the start time', () => {
    expect(parseProcStat(STAT)).toEqual({ state: 'S', cpuTicks: 2000, startTicks: 123456 });
  });

  it('reads past a command name that holds spaces and parentheses', () => {
    expect(parseProcStat(STAT.replace('(qemu-system-x86)', '(a) Z (b)'))).toEqual({ state: 'S', cpuTicks: 2000, startTicks: 123456 });
  });

  it('answers undefined for what is not a stat line', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('garbage')).toBeUndefined();
    expect(parseProcStat('1 (x) S 1')).toBeUndefined();
  });
});

describe('parseVmRss', () => {
  it('reads the resident memory in bytes, 0 when there is none', () => {
    expect(parseVmRss('Name:\tqemu-system-x86\nVmHWM:\t   50000 kB\nVmRSS:\t   45056 kB\nRssAnon:\t 30000 kB\n')).toBe(45056 * 1024);
    expect(parseVmRss('Name:\tkthreadd\nState:\tS (sleeping)\n')).toBe(0);
  });
});

describe('processUptime', () => {
  it('counts whole seconds since the start, never below 0, and 0 without a host uptime', () => {
    const stat = { state: 'S', cpuTicks: 0, startTicks: 123456 };
    expect(processUptime(stat, 2000.9)).toBe(766);
    expect(processUptime(stat, 1000)).toBe(0);
    expect(processUptime(stat, Number.NaN)).toBe(0);
  });
});

describe('CpuMeter', () => {
  let now: number;
  const meter = (cpus: number) => new CpuMeter(cpus, () => now);
  beforeEach(() => {
    now = 0;
  });

  it('measures 0 the first time, then the busy share of all host CPUs since the last reading', () => {
    const cpu = meter(4);
    now = 10_000;
    expect(cpu.measure(100, 500, 10)).toBe(0);
    // 2 s of one CPU in 2 s on 4 CPUs: a quarter.
    now = 12_000;
    expect(cpu.measure(100, 500, 12)).toBe(0.25);
  });

  it('starts over for a guest started anew, and for a guest it was told to forget', () => {
    const cpu = meter(1);
    cpu.measure(100, 500, 10);
    now = 1000;
    expect(cpu.measure(100, 900, 0.5)).toBe(0);
    cpu.keepOnly(new Set([101]));
    now = 2000;
    expect(cpu.measure(100, 900, 1.5)).toBe(0);
    now = 3000;
    expect(cpu.measure(100, 900, 2)).toBe(0.5);
  });

  it('keeps the fraction between 0 and 1, and measures nothing when no time passed', () => {
    const cpu = meter(1);
    cpu.measure(100, 500, 0);
    now = 1000;
    expect(cpu.measure(100, 500, 5)).toBe(1);
    expect(cpu.measure(100, 500, 6)).toBe(0);
  });
});

describe('readProcess', () => {
  it('reads a live process of this kernel and answers undefined for one that is gone', async () => {
    const reading = await readProcess(process.pid);
    expect(reading?.stat.state).toMatch(/^[RS]$/);
    expect(reading?.mem).toBeGreaterThan(0);
    expect(reading?.uptime).toBeGreaterThanOrEqual(0);
    expect(await readProcess(NO_PID)).toBeUndefined();
  });
});

describe('ProcessFigures', () => {
  let proc: string;
  let now: number;
  const stat = (ticks: number, started: number) => `4242 (kvm (web)) S 1 4242 4242 0 -1 4 0 0 0 0 ${ticks} 0 0 0 20 0 5 0 ${started} 0 0\n`;

  beforeEach(async () => {
    proc = await mkdtemp(join(tmpdir(), 'corral-proc-'));
    now = 0;
    await mkdir(join(proc, '4242'));
    await writeFile(join(proc, 'uptime'), '5000.25 9000.00\n');
    await writeFile(join(proc, '4242/stat'), stat(1000, 200_000));
    await writeFile(join(proc, '4242/status'), 'Name:\tkvm (web)\nVmRSS:\t  102400 kB\n');
  });
  afterEach(async () => {
    await rm(proc, { recursive: true, force: true });
  });

  it('gives the uptime, the resident memory and the CPU share since the previous read of a guest’s process, and its traffic', async () => {
    // The VM's tap and its QEMU's block I/O.
    await mkdir(join(proc, 'sys/class/net/tap100i0/statistics'), { recursive: true });
    await writeFile(join(proc, 'sys/class/net/tap100i0/statistics/tx_bytes'), '3000\n');
    await writeFile(join(proc, 'sys/class/net/tap100i0/statistics/rx_bytes'), '1000\n');
    await writeFile(join(proc, '4242/io'), 'rchar: 9\nwchar: 9\nread_bytes: 4096\nwrite_bytes: 8192\n');
    const figures = new ProcessFigures({ procRoot: proc, sysRoot: join(proc, 'sys'), cpus: 4, now: () => now });
    const traffic = { netin: 3000, netout: 1000, diskread: 4096, diskwrite: 8192 };
    expect(await figures.read(100, 4242)).toEqual({ uptime: 3000, mem: 102400 * 1024, cpu: 0, ...traffic });
    // A quarter of 4 CPUs over ten seconds: 10 s of CPU time, 1000 ticks.
    now = 10_000;
    await writeFile(join(proc, '4242/stat'), stat(2000, 200_000));
    expect(await figures.read(100, 4242)).toEqual({ uptime: 3000, mem: 102400 * 1024, cpu: 0.25, ...traffic });
    figures.keepOnly(new Set());
    now = 20_000;
    expect((await figures.read(100, 4242))?.cpu).toBe(0);
  });

  it('answers undefined for a process that is gone', async () => {
    expect(await new ProcessFigures({ procRoot: proc }).read(100, 4343)).toBeUndefined();
  });
});
