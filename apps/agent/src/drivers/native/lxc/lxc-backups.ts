import { join } from 'node:path';
import type { BackupMode, GuestSpec, ParamsOf, ResultOf } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { excludedMountPoints, refuseUnrestorable } from '../../archive-contents.js';
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
import { volumeOf } from '../../guest-volumes.js';
import { requireActive } from '../../storage-location.js';
import type { LxcState, LxcTools } from './lxc-tools.js';
import { statOf } from './lxc-volumes.js';

/** vzdump's `stopwait` default: 10 minutes for a clean shutdown in `stop` mode, then the container is killed. */
const STOP_WAIT_S = 600;
/** Thawing or starting the container again runs after the request's signal may have fired, so it gets a signal of its own. */
const AGAIN_TIMEOUT_MS = 5 * 60_000;
/** A restore leaves out the config the archive carries (`./etc/vzdump/pct.conf`): it is the control plane's to place. */
const RESTORE_EXCLUDE = ['./etc/vzdump'];

/** What the container part lends its backups. */
export interface LxcBackupSteps {
  shutdown(vmid: number, timeoutS: number, forceStop: boolean, context: CommandContext): Promise<void>;
  start(guest: GuestSpec, context: CommandContext): Promise<void>;
  /** Makes the container as a create does: the volumes of `keys`, filled by `fill`, then its config; a failure leaves nothing of it. */
  build(guest: GuestSpec, keys: readonly string[], fill: () => Promise<void>, context: CommandContext): Promise<void>;
}

/**
 * Container backups in PVE's layout: the `rootfs` directory at `./` with numeric owners, the config
 * first at `./etc/vzdump/pct.conf`. Mount points are left out. A running container is frozen for
 * the copy (`snapshot` falls back to `suspend`: a directory has no snapshots) or stopped and
 * started again (`stop`).
 */
export class LxcBackups implements GuestBackups {
  constructor(
    private readonly host: Host,
    private readonly tools: LxcTools,
    private readonly steps: LxcBackupSteps,
  ) {}

  async backup(
    { guest, config, mode, compress, storage, notes }: ParamsOf<'guest.backup'>,
    request: CommandContext,
  ): Promise<ResultOf<'guest.backup'>> {
    const { context, lines } = captureLog(request);
    const storagePath = await requireActive(this.host, storage);
    const rootfs = volumeOf(guest, 'rootfs');
    const root = hostPath(this.host, rootfs.path);
    if ((await statOf(root))?.isDirectory() !== true)
      throw new Error(`CT ${guest.vmid} has no root file system: ${rootfs.path} is not a directory`);
    const state = await this.tools.state(guest.vmid, context.signal);
    const used = backupMode('lxc', pausedMode(mode, state === 'FROZEN'), state !== 'STOPPED', context.log);
    context.log("INFO: including mount point rootfs ('/') in backup");
    for (const line of excludedMountPoints(guest)) context.log(line);
    const file = await newBackupFile(storagePath, 'lxc', guest.vmid, compress, context.signal);
    const member = CONFIG_MEMBERS.lxc;
    // The root's own ./etc/vzdump/pct.conf, if any, is archived too: an exclusion would take the staged one with it, and readers take the first.
    const size = await withStagedFiles(storagePath, file, { [member]: config }, (staging) =>
      this.quiesced(guest, used, state, context, () => {
        context.log(`INFO: creating vzdump archive '${storage.path}/${file}'`);
        return writeArchive({
          storagePath,
          file,
          compress,
          sources: [
            { dir: staging, members: [member] },
            { dir: root, members: ['.'] },
          ],
          signal: context.signal,
          log: context.log,
        });
      }),
    );
    await writeBackupSidecars(storagePath, file, { log: lines, notes });
    return { file, size, mode: used };
  }

  async config({ storage, file }: ParamsOf<'guest.backup.config'>, context: CommandContext): Promise<ResultOf<'guest.backup.config'>> {
    return readBackupConfig(await requireActive(this.host, storage), file, context.signal);
  }

  /** A new container whose root is the archive's files (without its ./etc/vzdump), owners numeric; a failure leaves nothing of it. */
  async restore({ guest, storage, file, restore }: ParamsOf<'guest.restore'>, context: CommandContext): Promise<void> {
    refuseUnrestorable(guest, file, restore);
    const archive = join(await requireActive(this.host, storage), file);
    if ((await statOf(archive))?.isFile() !== true) throw new Error(`backup archive ${file} does not exist`);
    await this.steps.build(
      guest,
      restore,
      async () => {
        if (!restore.includes('rootfs')) return;
        context.log(extractingArchive(`${storage.path}/${file}`));
        await extractArchive(archive, hostPath(this.host, volumeOf(guest, 'rootfs').path), {
          exclude: RESTORE_EXCLUDE,
          signal: context.signal,
          log: context.log,
        });
      },
      context,
    );
  }

  /**
   * Runs `work` with the container as the mode wants it: frozen (one frozen already stays so, see
   * `pausedMode`), or stopped; then thawed or started again, whatever the outcome. A container that
   * is not running is left alone.
   */
  private async quiesced<T>(
    guest: GuestSpec,
    mode: BackupMode,
    state: LxcState,
    context: CommandContext,
    work: () => Promise<T>,
  ): Promise<T> {
    const { vmid } = guest;
    const again = () => AbortSignal.timeout(AGAIN_TIMEOUT_MS);
    if (mode === 'suspend' && state !== 'FROZEN') {
      context.log(MODE_STEPS.suspending);
      await this.tools.check('lxc-freeze', vmid, [], { signal: context.signal });
      return afterwards(work(), context.log, async () => {
        context.log(MODE_STEPS.resuming);
        await this.tools.check('lxc-unfreeze', vmid, [], { signal: again() });
      });
    }
    if (mode === 'stop' && state !== 'STOPPED') {
      context.log(MODE_STEPS.stopping);
      const stopped = async () => {
        await this.steps.shutdown(vmid, STOP_WAIT_S, true, context);
        return work();
      };
      return afterwards(stopped(), context.log, async () => {
        // As vzdump: started again only if it did stop (a shutdown cancelled midway leaves it running).
        if ((await this.tools.state(vmid, again())) !== 'STOPPED') return;
        context.log(MODE_STEPS.restarting);
        await this.steps.start(guest, { ...context, signal: again() });
      });
    }
    return work();
  }
}
