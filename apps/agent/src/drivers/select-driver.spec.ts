import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHost } from '../host/host.js';
import { jsonLogger } from '../logging/logger.js';
import { NativeDriver } from './native/native-driver.js';
import { PveDriver } from './pve/pve-driver.js';
import { chooseDriver, DriverSettingError, selectDriver, simSpeed } from './select-driver.js';
import { SimDriver } from './sim/sim-driver.js';

/** A PATH that holds exactly these programs. */
const installed =
  (...programs: string[]) =>
  async (name: string) =>
    programs.includes(name) ? `/usr/bin/${name}` : undefined;

describe('choosing the guest driver', () => {
  it('takes the one CORRAL_DRIVER names, whatever is installed', async () => {
    await expect(chooseDriver({ CORRAL_DRIVER: 'sim' }, installed('qm', 'qemu-system-x86_64'))).resolves.toEqual({
      name: 'sim',
      reason: 'CORRAL_DRIVER=sim',
    });
    await expect(chooseDriver({ CORRAL_DRIVER: 'pve' }, installed())).resolves.toEqual({ name: 'pve', reason: 'CORRAL_DRIVER=pve' });
  });

  it('refuses a CORRAL_DRIVER it does not know, naming the ones it does', async () => {
    const choosing = chooseDriver({ CORRAL_DRIVER: 'qemu' }, installed());
    await expect(choosing).rejects.toBeInstanceOf(DriverSettingError);
    await expect(choosing).rejects.toThrow("CORRAL_DRIVER must be pve, native or sim, not 'qemu'");
  });

  it('picks pve where qm is, else native where QEMU is, else sim, saying why', async () => {
    await expect(chooseDriver({}, installed('qm', 'qemu-system-x86_64'))).resolves.toEqual({
      name: 'pve',
      reason: '/usr/bin/qm exists: a Proxmox VE host',
    });
    await expect(chooseDriver({ CORRAL_DRIVER: '' }, installed('qemu-system-x86_64'))).resolves.toEqual({
      name: 'native',
      reason: '/usr/bin/qemu-system-x86_64 exists',
    });
    await expect(chooseDriver({}, installed('lxc-start'))).resolves.toEqual({
      name: 'sim',
      reason: 'neither qm nor qemu-system-x86_64 is installed: guests are simulated',
    });
  });

  it('reads the simulation speed from CORRAL_SIM_SPEED, 1 by default, and refuses what is not a number of 0 or more', () => {
    expect(simSpeed({})).toBe(1);
    expect(simSpeed({ CORRAL_SIM_SPEED: '0' })).toBe(0);
    expect(simSpeed({ CORRAL_SIM_SPEED: '2.5' })).toBe(2.5);
    for (const wrong of ['-1', 'fast', 'Infinity']) {
      expect(() => simSpeed({ CORRAL_SIM_SPEED: wrong })).toThrow(
        new DriverSettingError(`CORRAL_SIM_SPEED must be a number of 0 or more (1 realistic, 0 instant), not '${wrong}'`),
      );
    }
  });

  it('makes the driver it chose for the host', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'corral-select-'));
    try {
      const host = await openHost(dir);
      const logger = jsonLogger(() => undefined);
      const made = async (name: string) => (await selectDriver(host, dir, { CORRAL_DRIVER: name, CORRAL_SIM_SPEED: '0' }, logger)).driver;
      expect(await made('sim')).toBeInstanceOf(SimDriver);
      expect(await made('pve')).toBeInstanceOf(PveDriver);
      expect(await made('native')).toBeInstanceOf(NativeDriver);
      await expect(selectDriver(host, dir, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: 'x' }, logger)).rejects.toBeInstanceOf(
        DriverSettingError,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
