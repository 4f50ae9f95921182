import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iowaitShare, parseCpuTimes, parseProcessorLines, parseSwap, readBoot, readKsmShared } from './kernel-figures.js';

describe('kernel figures', () => {
  it('reads the summed and iowait times of the all-processors line of /proc/stat, and the iowait share between two reads', () => {
    const before = { total: 1000, iowait: 40 };
    const after = { total: 1340, iowait: 120 };
    expect(parseCpuTimes('cpu  100 0 50 800 40 5 5 0 30 0\ncpu0 50 0 25 400 20 2 3 0 0 0\n')).toEqual(before);
    expect(parseCpuTimes('cpu  150 0 60 1000 120 5 5 0 30 0\n')).toEqual(after);
    expect(iowaitShare(before, after)).toBeCloseTo(80 / 340);
    expect(iowaitShare(undefined, before)).toBeCloseTo(0.04);
    expect(iowaitShare(after, after)).toBe(0);
    expect(parseCpuTimes('intr 1 2 3\n')).toBeUndefined();
  });

  it('reads swap from /proc/meminfo in bytes, and none where it has no swap lines', () => {
    expect(parseSwap('MemTotal:  1000 kB\nSwapTotal:  2048 kB\nSwapFree:  1024 kB\n')).toEqual({
      total: 2097152,
      used: 1048576,
      free: 1048576,
    });
    expect(parseSwap('MemTotal:  1000 kB\n')).toEqual({ total: 0, used: 0, free: 0 });
  });

  it("reads the first processor's clock and flags as the kernel writes them, and no clock on a kernel without one", () => {
    const x86 = 'processor\t: 0\ncpu MHz\t\t: 3400.000\nflags\t\t: fpu vme vmx\nprocessor\t: 1\ncpu MHz\t\t: 1200.000\nflags\t\t: fpu\n';
    expect(parseProcessorLines(x86)).toEqual({ mhz: '3400.000', flags: 'fpu vme vmx' });
    expect(parseProcessorLines('processor\t: 0\nFeatures\t: fp asimd\n')).toEqual({ flags: '' });
  });

  describe('from a /sys of its own', () => {
    let sys: string;
    beforeEach(async () => {
      sys = await mkdtemp(join(tmpdir(), 'corral-sys-'));
    });
    afterEach(() => rm(sys, { recursive: true, force: true }));

    it('tells legacy BIOS, EFI without the variable, and EFI with Secure Boot on or off', async () => {
      expect(await readBoot(sys)).toEqual({ efi: false });
      await mkdir(join(sys, 'firmware/efi/efivars'), { recursive: true });
      expect(await readBoot(sys)).toEqual({ efi: true });
      const variable = join(sys, 'firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c');
      // The variable's 4 attribute bytes, then its value.
      await writeFile(variable, Buffer.from([6, 0, 0, 0, 1]));
      expect(await readBoot(sys)).toEqual({ efi: true, secureboot: true });
      await writeFile(variable, Buffer.from([6, 0, 0, 0, 0]));
      expect(await readBoot(sys)).toEqual({ efi: true, secureboot: false });
    });

    it("counts KSM's shared pages in bytes, and 0 without KSM", async () => {
      expect(await readKsmShared(sys)).toBe(0);
      await mkdir(join(sys, 'kernel/mm/ksm'), { recursive: true });
      await writeFile(join(sys, 'kernel/mm/ksm/pages_sharing'), '3\n');
      expect(await readKsmShared(sys)).toBe(3 * 4096);
    });
  });
});
