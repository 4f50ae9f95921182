import { findProgram } from '../host/find-program.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../logging/logger.js';
import { DRIVER_NAMES, type DriverName, type GuestDriver } from './guest-driver.js';
import { NativeDriver } from './native/native-driver.js';
import { NativeLxc } from './native/lxc/native-lxc.js';
import { NativeQemu } from './native/qemu/native-qemu.js';
import { PveDriver } from './pve/pve-driver.js';
import { SimDriver } from './sim/sim-driver.js';

/** A driver setting the agent cannot run with: it does not start (exit code 1, the message logged). */
export class DriverSettingError extends Error {
  override name = 'DriverSettingError';
}

export interface DriverChoice {
  readonly name: DriverName;
  /** Why this one, for the operator reading the agent's start. */
  readonly reason: string;
}

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The driver named by `CORRAL_DRIVER`, else the one this host calls for:
 * `pve` where PVE's `qm` is on the PATH, else `native` where QEMU is, else `sim`.
 */
export async function chooseDriver(
  env: Environment,
  find: (program: string) => Promise<string | undefined> = findProgram,
): Promise<DriverChoice> {
  const named = env['CORRAL_DRIVER'];
  if (named !== undefined && named !== '') {
    if (!isDriverName(named))
      throw new DriverSettingError(
        `CORRAL_DRIVER must be ${DRIVER_NAMES.slice(0, -1).join(', ')} or ${DRIVER_NAMES.at(-1)}, not '${named}'`,
      );
    return { name: named, reason: `CORRAL_DRIVER=${named}` };
  }
  const qm = await find('qm');
  if (qm !== undefined) return { name: 'pve', reason: `${qm} exists: a Proxmox VE host` };
  const qemu = await find('qemu-system-x86_64');
  if (qemu !== undefined) return { name: 'native', reason: `${qemu} exists` };
  return { name: 'sim', reason: 'neither qm nor qemu-system-x86_64 is installed: guests are simulated' };
}

/** `CORRAL_SIM_SPEED`: how the simulator's durations are scaled; 1 when unset, 0 for instant operations. */
export function simSpeed(env: Environment): number {
  const text = env['CORRAL_SIM_SPEED'];
  if (text === undefined || text === '') return 1;
  const speed = Number(text);
  if (!Number.isFinite(speed) || speed < 0)
    throw new DriverSettingError(`CORRAL_SIM_SPEED must be a number of 0 or more (1 realistic, 0 instant), not '${text}'`);
  return speed;
}

/**
 * The guest driver for this host, and why it was chosen; the simulator keeps its guests in the
 * agent's state directory `stateDir`. Throws a DriverSettingError for a wrong setting.
 */
export async function selectDriver(
  host: Host,
  stateDir: string,
  env: Environment,
  logger: Logger,
): Promise<{ driver: GuestDriver; reason: string }> {
  const { name, reason } = await chooseDriver(env);
  const drivers: Record<DriverName, () => GuestDriver> = {
    pve: () => new PveDriver(),
    native: () => new NativeDriver(new NativeQemu(host, logger), new NativeLxc(host, logger)),
    sim: () => new SimDriver(host, { stateDir, speed: simSpeed(env) }),
  };
  return { driver: drivers[name](), reason };
}

function isDriverName(name: string): name is DriverName {
  return (DRIVER_NAMES as readonly string[]).includes(name);
}
