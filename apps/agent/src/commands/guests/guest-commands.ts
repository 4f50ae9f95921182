import type { CommandName } from '@corral/protocol';
import type { GuestDriver } from '../../drivers/guest-driver.js';
import type { SelfFence } from '../../ha/self-fence.js';
import type { RuntimeReports } from '../../reports/runtime-reports.js';
import type { AreaHandlers } from '../area-handlers.js';

/** Runs a command that can make a guest run; the HA self-fence refuses or stops it (ha/self-fence.ts). */
export type RunGuard = Pick<SelfFence, 'guard'>;
const UNGUARDED: RunGuard = { guard: (_type, _vmid, context, operation) => operation(context) };

/**
 * The guest commands, each one call of the driver (but `guest.vnc.open`: vnc-stream.ts). Whether it
 * succeeded or failed, the guests' run state is read again before the answer, so that the runtime
 * report and the vm-start/vm-stop events it causes reach the control plane before the task ends: a
 * client that sees the task end `OK` then finds the guest running. The commands that can make a
 * guest run go through `fence.guard`: a fenced HA guest runs again only under a new lease.
 */
export function guestCommands(
  driver: GuestDriver,
  runtime: Pick<RuntimeReports, 'refresh' | 'making'>,
  fence: RunGuard = UNGUARDED,
): AreaHandlers<Exclude<Extract<CommandName, `guest.${string}`>, 'guest.vnc.open'>> {
  const thenRefresh = async <T>(operation: Promise<T>): Promise<T> => {
    try {
      return await operation;
    } finally {
      await runtime.refresh();
    }
  };
  const act = async (operation: Promise<void>): Promise<null> => {
    await thenRefresh(operation);
    return null;
  };
  /** A create, clone or restore: reported as making the guest while it runs, the run state read after. */
  const make = async (vmid: number, operation: () => Promise<void>): Promise<null> => {
    await runtime.making(vmid, operation);
    return null;
  };
  return {
    'guest.create': (params, context) => make(params.guest.vmid, () => driver.create(params, context)),
    'guest.start': ({ guest, ha }, context) =>
      act(fence.guard(guest.type, guest.vmid, context, (guarded) => driver.start(guest, guarded), ha === true)),
    'guest.stop': ({ type, vmid }, context) => act(driver.stop(type, vmid, context)),
    'guest.shutdown': (params, context) => act(driver.shutdown(params, context)),
    'guest.reboot': (params, context) =>
      act(fence.guard(params.guest.type, params.guest.vmid, context, (guarded) => driver.reboot(params, guarded))),
    'guest.reset': ({ vmid }, context) => act(driver.reset(vmid, context)),
    'guest.suspend': ({ type, vmid }, context) => act(driver.suspend(type, vmid, context)),
    'guest.resume': ({ type, vmid }, context) => act(fence.guard(type, vmid, context, (guarded) => driver.resume(type, vmid, guarded))),
    'guest.destroy': ({ guest }, context) => act(driver.destroy(guest, context)),
    'guest.clone': (params, context) => make(params.target.vmid, () => driver.clone(params, context)),
    'guest.template': ({ guest }, context) => act(driver.template(guest, context)),
    // A monitor command may change the run state too (`stop`, `cont`, `system_reset`).
    'guest.monitor': ({ vmid, command }, context) => thenRefresh(driver.monitor(vmid, command, context)),
    // `guest-shutdown` stops the VM.
    'guest.agent': (params, context) => thenRefresh(driver.guestAgent(params, context)),
    'guest.interfaces': ({ vmid }, context) => driver.containerInterfaces(vmid, context),
    // The VM appears on the target and leaves the source: each side reports it before the answer.
    'guest.migrate.receive': (params, context) => thenRefresh(driver.migration.receive(params, context)),
    'guest.migrate.send': (params, context) => thenRefresh(driver.migration.send(params, context)),
    'guest.migrate.finish': (params, context) => act(driver.migration.finish(params, context)),
    'guest.migrate.abort': (params, context) => act(driver.migration.abort(params, context)),
    // A backup in stop or suspend mode stops or pauses the guest and runs it again.
    'guest.backup': (params, context) =>
      thenRefresh(fence.guard(params.guest.type, params.guest.vmid, context, (guarded) => driver.backups.backup(params, guarded))),
    'guest.backup.config': (params, context) => driver.backups.config(params, context),
    'guest.restore': (params, context) => make(params.guest.vmid, () => driver.backups.restore(params, context)),
    'guest.volume.allocate': (params, context) => act(driver.volumes.allocate(params, context)),
    'guest.volume.free': (params, context) => act(driver.volumes.free(params, context)),
    'guest.volume.resize': (params, context) => act(driver.volumes.resize(params, context)),
    'guest.volume.move': (params, context) => act(driver.volumes.move(params, context)),
    // A rollback may start the guest (with its saved state, or `start`), so it is guarded as a start.
    'guest.snapshot.create': (params, context) => act(driver.snapshots.create(params, context)),
    'guest.snapshot.rollback': (params, context) =>
      act(fence.guard(params.guest.type, params.guest.vmid, context, (guarded) => driver.snapshots.rollback(params, guarded))),
    'guest.snapshot.delete': (params, context) => act(driver.snapshots.delete(params, context)),
    'guest.cloudinit.write': (params, context) => act(driver.writeCloudinit(params, context)),
  };
}
