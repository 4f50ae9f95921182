import { join } from 'node:path';
import type { BackupMode, GuestSpec, GuestVolume, ParamsOf, ResultOf } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import { archivedVolumes, refuseUnrestorable } from '../../archive-contents.js';
import {
  newBackupFile,
  captureLog,
  CONFIG_MEMBERS,
  extractArchive,
  readBackupConfig,
  writeArchive,
  writeBackupSidecars,
} from '../../backup-archive.js';
import { afterwards, backupMode, MODE_STEPS, pausedMode } from '../../backup-modes.js';
import { withStagedFiles } from '../../backup-staging.js';
import type { CommandContext } from '../../command-context.js';
import type { GuestBackups } from '../../guest-backups.js';
import { extractingArchive } from '../../guest-messages.js';
import { removeEmptyGuestFolder, volumeOf } from '../../guest-volumes.js';
import { requireActive } from '../../storage-location.js';
import type { NativeGuests } from '../native-guests.js';
import { copyLive, driveSizes } from './qemu-backup-jobs.js';
import { COPY_LIMIT_MS, imageFormat, makeImages, makeReadOnly, refuseExisting, restoreImagePlan } from './qemu-images.js';
import { QemuVm, runState } from './qemu-vm.js';
import { vmFailure } from './vm-failure.js';

/** PVE's `stopwait`: how long a `stop` mode backup waits for the guest to shut down before it stops it. */
const STOP_WAIT_S = 600;
/** Running the VM again after the copy, when the request's own signal may have fired. */
const RESTART_MS = 5 * 60_000;

/** How the VM is found when its backup starts. */
type VmState = 'stopped' | 'running' | 'paused';

/** What a backup needs of the VM part: its shutdown and start, for `stop` mode. */
export type VmPower = Pick<NativeGuests, 'shutdown' | 'start'>;

export interface QemuBackupOptions {
  /** Instead of PVE's 10 minutes (tests of guests without an OS, which ignore the power button). */
  readonly stopWaitS?: number;
}

/** A disk's image in the archive. */
const diskMember = (key: string) => `${key}.qcow2`;

/**
 * The native driver's VM backups (libs/protocol guest-backup.ts; the archive: backup-archive.ts).
 * Each disk is copied into a qcow2 image in a hidden staging folder beside the archive, which is
 * then written from that folder and the folder removed: a stopped VM's disks with qemu-img, a
 * running or paused VM's with QEMU's backup jobs (qemu-backup-jobs.ts).
 */
export class QemuBackups implements GuestBackups {
  constructor(
    private readonly host: Host,
    private readonly power: VmPower,
    private readonly options: QemuBackupOptions = {},
  ) {}

  async backup(
    { guest, config, mode, compress, storage, notes }: ParamsOf<'guest.backup'>,
    request: CommandContext,
  ): Promise<ResultOf<'guest.backup'>> {
    const { context, lines } = captureLog(request);
    const { signal, log } = context;
    const storagePath = await requireActive(this.host, storage);
    const file = await newBackupFile(storagePath, 'qemu', guest.vmid, compress, signal);
    const vm = new QemuVm(this.host, guest.vmid);
    const state = await stateOf(vm, signal);
    log(`INFO: status = ${state}`);
    log(`INFO: VM Name: ${guest.name}`);
    const disks = archivedVolumes(guest).map((key) => volumeOf(guest, key));
    for (const disk of disks) log(`INFO: include disk '${disk.key}' '${disk.volid}' ${(disk.size / 1024 ** 2).toFixed(0)} MiB`);
    const used = backupMode('qemu', pausedMode(mode, state === 'paused'), state !== 'stopped', log);
    const members = [CONFIG_MEMBERS.qemu, ...disks.map((disk) => diskMember(disk.key))];
    try {
      const size = await withStagedFiles(storagePath, file, { [CONFIG_MEMBERS.qemu]: config }, async (staging) => {
        await this.copyDisks(vm, guest, state, used, disks, staging, context);
        log(`INFO: creating vzdump archive '${storage.path}/${file}'`);
        return writeArchive({ storagePath, file, compress, sources: [{ dir: staging, members }], signal, log });
      });
      log(`INFO: archive file size: ${(size / 1024 ** 2).toFixed(2)} MiB`);
      await writeBackupSidecars(storagePath, file, { log: lines, notes });
      return { file, size, mode: used };
    } catch (error) {
      throw vmFailure(guest.vmid, 'backup failed', error);
    }
  }

  async config({ storage, file }: ParamsOf<'guest.backup.config'>, { signal }: CommandContext): Promise<ResultOf<'guest.backup.config'>> {
    return readBackupConfig(await requireActive(this.host, storage), file, signal);
  }

  /** Each volume of `restore` made from its disk's image in the archive: all or none, and none that exists already. */
  async restore({ guest, storage, file, restore }: ParamsOf<'guest.restore'>, context: CommandContext): Promise<void> {
    const { vmid } = guest;
    refuseUnrestorable(guest, file, restore);
    const volumes = restore.map((key) => volumeOf(guest, key));
    await refuseExisting(this.host, vmid, volumes);
    const storagePath = await requireActive(this.host, storage);
    await withStagedFiles(storagePath, file, {}, async (staging) => {
      try {
        context.log(extractingArchive(`${storage.path}/${file}`));
        await extractArchive(join(storagePath, file), staging, {
          members: volumes.map((volume) => diskMember(volume.key)),
          signal: context.signal,
          log: context.log,
        });
        for (const volume of volumes) context.log(`map '${volume.key}' to '${volume.path}'`);
        await makeImages(
          this.host,
          vmid,
          volumes.map((volume) => restoreImagePlan(this.host, vmid, join(staging, diskMember(volume.key)), volume)),
          context,
        );
      } catch (error) {
        // makeImages removed the images it made; the guest's folder goes when they leave it empty.
        for (const volume of volumes) await removeEmptyGuestFolder(hostPath(this.host, volume.path), vmid);
        throw error;
      }
    });
    if (guest.template) await makeReadOnly(this.host, volumes, context.log);
  }

  /** Fills `<key>.qcow2` in the staging folder for each disk, pausing or stopping the VM as the mode says and running it again after. */
  private async copyDisks(
    vm: QemuVm,
    guest: GuestSpec,
    state: VmState,
    mode: BackupMode,
    disks: readonly GuestVolume[],
    staging: string,
    context: CommandContext,
  ): Promise<void> {
    const { signal, log } = context;
    if (state === 'stopped') return this.copyStopped(guest.vmid, disks, staging, context);
    if (state === 'paused' || mode === 'snapshot') return this.copyRunning(vm, disks, staging, context);
    const again = () => ({ signal: AbortSignal.timeout(RESTART_MS), log });
    if (mode === 'suspend') {
      const paused = async () => {
        log(MODE_STEPS.suspending);
        await vm.qmp('could not suspend it for the backup', signal, (qmp) => qmp.execute('stop'));
        await this.copyRunning(vm, disks, staging, context);
      };
      return afterwards(paused(), log, async () => {
        log(MODE_STEPS.resuming);
        await vm.qmp('could not resume it after the backup', again().signal, (qmp) => qmp.execute('cont'));
      });
    }
    const stopped = async () => {
      log(MODE_STEPS.stopping);
      await this.power.shutdown(guest.vmid, this.options.stopWaitS ?? STOP_WAIT_S, true, context);
      await this.copyStopped(guest.vmid, disks, staging, context);
    };
    return afterwards(stopped(), log, async () => {
      // As vzdump: started again only if it did stop (a shutdown stopped midway leaves it running).
      if ((await vm.runningPid()) !== undefined) return;
      log(MODE_STEPS.restarting);
      await this.power.start(guest, again());
    });
  }

  /** qemu-img of each volume as the guest would read it: a linked clone's overlay with its base, sparse where it reads zeros. */
  private async copyStopped(vmid: number, disks: readonly GuestVolume[], staging: string, { signal, log }: CommandContext): Promise<void> {
    for (const volume of disks) {
      const args = [
        'convert',
        '-f',
        imageFormat(vmid, volume),
        '-O',
        'qcow2',
        hostPath(this.host, volume.path),
        join(staging, diskMember(volume.key)),
      ];
      await runChecked('qemu-img', args, { signal, onLine: log, timeoutMs: COPY_LIMIT_MS });
    }
  }

  /** The drives the VM has open through backup jobs, into new images of their sizes; any other volume (one QEMU does not use) with qemu-img. */
  private async copyRunning(vm: QemuVm, disks: readonly GuestVolume[], staging: string, context: CommandContext): Promise<void> {
    const sizes = await vm.qmp('could not read its drives', context.signal, driveSizes);
    await this.copyStopped(
      vm.vmid,
      disks.filter((volume) => !sizes.has(volume.key)),
      staging,
      context,
    );
    const live = disks
      .filter((volume) => sizes.has(volume.key))
      .map((volume) => ({ key: volume.key, target: join(staging, diskMember(volume.key)) }));
    for (const { key, target } of live)
      await runChecked('qemu-img', ['create', '-q', '-f', 'qcow2', target, String(sizes.get(key))], { signal: context.signal });
    if (live.length > 0) await copyLive(vm, live, context);
  }
}

async function stateOf(vm: QemuVm, signal: AbortSignal): Promise<VmState> {
  if ((await vm.runningPid()) === undefined) return 'stopped';
  return vm.qmp('could not read its state', signal, runState);
}
