import type { GuestSpec, GuestVolume, ParamsOf } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { refusedWhileRunning, snapshotLine, snapshotMissing, snapshotNameUsed } from '../../guest-messages.js';
import { snapshotVolumes, type GuestSnapshots } from '../../guest-snapshots.js';
import { QemuVm } from './qemu-vm.js';
import { vmFailure } from './vm-failure.js';

/** Saving a VM's memory writes all of it into the first disk: the request's signal bounds it, this only catches a hung QEMU. */
const SAVE_LIMIT_MS = 60 * 60_000;

/** Starts the VM in the state saved with a snapshot (QEMU's `-loadvm`), or afresh without `loadvm`. */
export type StartVm = (guest: GuestSpec, context: CommandContext, loadvm?: string) => Promise<void>;

/**
 * The native driver's VM snapshots: qcow2 internal snapshots, one of each disk (CD-ROMs are shared
 * ISO images and are left alone). A stopped VM's with `qemu-img snapshot`; a running VM's through
 * its QMP monitor: one `transaction` of `blockdev-snapshot-internal-sync` (all disks or none), or
 * with `vmstate` the monitor's `savevm`, which pauses the VM, writes its memory and device state
 * into its first disk beside the disks' snapshots, and lets it run again. A rollback to such a
 * snapshot starts QEMU with `-loadvm`, which reverts the disks and resumes the saved state. A raw
 * image has no snapshots: PVE's "snapshot feature is not available".
 */
export class QemuSnapshots implements GuestSnapshots {
  constructor(
    private readonly host: Host,
    private readonly start: StartVm,
  ) {}

  async create({ guest, snapname, vmstate }: ParamsOf<'guest.snapshot.create'>, context: CommandContext): Promise<void> {
    const disks = snapshotVolumes(guest);
    for (const disk of disks) {
      if ((await this.snapshotsOf(disk, context.signal)).includes(snapname)) throw new Error(snapshotNameUsed(snapname, disk));
    }
    const vm = new QemuVm(this.host, guest.vmid);
    if ((await vm.runningPid()) === undefined) await this.createOffline(guest.vmid, disks, snapname, context);
    else if (vmstate) await savevm(vm, snapname, context);
    else
      await vm.qmp('could not take the snapshot', context.signal, (qmp) =>
        qmp.execute('transaction', {
          actions: disks.map((disk) => ({ type: 'blockdev-snapshot-internal-sync', data: { device: driveId(disk), name: snapname } })),
        }),
      );
    for (const disk of disks) context.log(snapshotLine('created', snapname, disk));
  }

  async rollback({ guest, snapname, vmstate, start }: ParamsOf<'guest.snapshot.rollback'>, context: CommandContext): Promise<void> {
    if ((await new QemuVm(this.host, guest.vmid).runningPid()) !== undefined)
      throw new Error(refusedWhileRunning('qemu', guest.vmid, 'rollback'));
    const disks = snapshotVolumes(guest);
    // All checked first: a disk without the snapshot must not leave the others rolled back.
    for (const disk of disks) {
      if (!(await this.snapshotsOf(disk, context.signal)).includes(snapname)) throw new Error(snapshotMissing(snapname, disk));
    }
    // -loadvm reverts every disk itself, then resumes the saved state.
    if (vmstate) return this.start(guest, context, snapname);
    for (const disk of disks) {
      await this.qemuImg(guest.vmid, ['snapshot', '-a', snapname, hostPath(this.host, disk.path)], context);
      context.log(snapshotLine('rolled back to', snapname, disk));
    }
    if (start) await this.start(guest, context);
  }

  async delete({ guest, snapname }: ParamsOf<'guest.snapshot.delete'>, context: CommandContext): Promise<void> {
    const vm = new QemuVm(this.host, guest.vmid);
    const running = (await vm.runningPid()) !== undefined;
    for (const disk of snapshotVolumes(guest)) {
      if (!(await this.snapshotsOf(disk, context.signal)).includes(snapname)) {
        context.log(`${disk.volid}: has no snapshot '${snapname}'`);
        continue;
      }
      if (running)
        await vm.qmp(
          'could not delete the snapshot',
          context.signal,
          (qmp) => qmp.execute('blockdev-snapshot-delete-internal-sync', { device: driveId(disk), name: snapname }),
          SAVE_LIMIT_MS,
        );
      else await this.qemuImg(guest.vmid, ['snapshot', '-d', snapname, hostPath(this.host, disk.path)], context);
      context.log(snapshotLine('deleted', snapname, disk));
    }
  }

  /** The names of the image's snapshots (`-U`: a running QEMU holds the image's lock; reading its header is safe). */
  async snapshotsOf(disk: GuestVolume, signal: AbortSignal): Promise<string[]> {
    const output = await runChecked('qemu-img', ['info', '-U', '--output=json', '-f', 'qcow2', hostPath(this.host, disk.path)], { signal });
    const info = JSON.parse(output.stdout) as { snapshots?: { name?: unknown }[] };
    return (info.snapshots ?? []).flatMap((snapshot) => (typeof snapshot.name === 'string' ? [snapshot.name] : []));
  }

  /** Each disk's snapshot with qemu-img; when one fails, the ones taken before it are removed again. */
  private async createOffline(vmid: number, disks: readonly GuestVolume[], snapname: string, context: CommandContext): Promise<void> {
    const taken: GuestVolume[] = [];
    try {
      for (const disk of disks) {
        await this.qemuImg(vmid, ['snapshot', '-c', snapname, hostPath(this.host, disk.path)], context);
        taken.push(disk);
      }
    } catch (error) {
      const cleanup = { ...context, signal: AbortSignal.timeout(SAVE_LIMIT_MS) };
      for (const disk of taken)
        await this.qemuImg(vmid, ['snapshot', '-d', snapname, hostPath(this.host, disk.path)], cleanup).catch((failure: Error) =>
          context.log(failure.message),
        );
      throw error;
    }
  }

  private async qemuImg(vmid: number, args: string[], { signal, log }: CommandContext): Promise<void> {
    try {
      await runChecked('qemu-img', args, { signal, onLine: log, timeoutMs: SAVE_LIMIT_MS });
    } catch (error) {
      throw vmFailure(vmid, `qemu-img ${args[0] ?? ''} ${args[1] ?? ''} failed`, error);
    }
  }
}

/** The monitor's `savevm`: it answers with nothing when it worked, and with the error's text when not. */
async function savevm(vm: QemuVm, snapname: string, { signal }: CommandContext): Promise<void> {
  const said = await vm.qmp(
    'could not save the snapshot',
    signal,
    (qmp) => qmp.execute('human-monitor-command', { 'command-line': `savevm ${snapname}` }),
    SAVE_LIMIT_MS,
  );
  if (typeof said === 'string' && said.trim() !== '') throw vmFailure(vm.vmid, 'could not save the snapshot', new Error(said.trim()));
}

/** The id QEMU knows the disk's drive by (qemu-command-line.ts: `drive-<key>`). */
function driveId(disk: GuestVolume): string {
  return `drive-${disk.key}`;
}
