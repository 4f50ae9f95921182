import { BackupFile, BackupMode, type BackupCompression, type ParamsOf, type ResultOf } from '@corral/protocol';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandFailure } from '../../host/command-failure.js';
import type { Host } from '../../host/host.js';
import { refuseUnrestorable } from '../archive-contents.js';
import { readBackupConfig } from '../backup-archive.js';
import type { CommandContext } from '../command-context.js';
import type { GuestBackups } from '../guest-backups.js';
import { requireActive } from '../storage-location.js';
import { restoreArguments } from './pve-arguments.js';

/** Runs a PVE tool with its output lines going to the task log; fails with its last line. */
export type PveRunner = (program: string, args: readonly string[], context: CommandContext) => Promise<unknown>;

/**
 * PVE's tools see the host's own file system, whatever host root the agent was given (as with the
 * guests' volumes, which PVE resolves itself): storage paths are that system's.
 */
const PVE_HOST: Host = { root: '/', live: true };
const VZDUMP_COMPRESS: Readonly<Record<BackupCompression, string>> = { none: '0', gzip: 'gzip', zstd: 'zstd' };
/** vzdump's line naming the mode it used: `stop` for a guest that is not running, `suspend` where `snapshot` fell back. */
const MODE_LINE = /^INFO: backup mode: (\w+)$/;
/** vzdump's line saying why a guest's backup failed; its last line only says that the job had errors. */
const FAILURE_LINE = /^ERROR: (.*)$/;

/**
 * The `pve` driver's backups: PVE's own `vzdump` for containers, into the storage's `dump/`
 * (`--dumpdir`, so PVE's retention settings leave it alone: the control plane prunes), and
 * `pct restore`. VMs are refused: vzdump writes them as VMA archives, which the protocol's archive
 * format is not, and `qmrestore` reads only those.
 */
export class PveBackups implements GuestBackups {
  constructor(private readonly run: PveRunner) {}

  async backup(
    { guest, mode, compress, storage, notes }: ParamsOf<'guest.backup'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.backup'>> {
    if (guest.type === 'qemu')
      throw new CommandFailure('unavailable', 'backups of VMs on the pve driver are not supported yet: PVE writes VMA archives');
    const folder = await requireActive(PVE_HOST, storage);
    const dumpdir = join(folder, 'dump');
    await mkdir(dumpdir, { recursive: true });
    const before = new Set(await archivesOf(dumpdir, guest.vmid));
    let used = mode;
    let failure: string | undefined;
    const log = (line: string) => {
      const named = BackupMode.safeParse(MODE_LINE.exec(line)?.[1]);
      if (named.success) used = named.data;
      failure ??= FAILURE_LINE.exec(line)?.[1];
      context.log(line);
    };
    const args = [String(guest.vmid), '--dumpdir', dumpdir, '--mode', mode, '--compress', VZDUMP_COMPRESS[compress], '--remove', '0'];
    await this.run('vzdump', args, { ...context, log }).catch((error: unknown) => {
      throw failure === undefined ? error : new Error(failure);
    });
    const made = (await archivesOf(dumpdir, guest.vmid)).filter((name) => !before.has(name));
    const [name] = made;
    if (made.length !== 1 || name === undefined)
      throw new Error(
        `vzdump succeeded, but ${storage.path}/dump has ${made.length} new archives of CT ${guest.vmid} where one was expected`,
      );
    const file = `dump/${name}`;
    // vzdump adds notes to backups on a storage it was given by name only, not in a --dumpdir.
    if (notes !== undefined) await writeFile(join(folder, `${file}.notes`), notes);
    return { file, size: (await stat(join(folder, file))).size, mode: used };
  }

  async config({ storage, file }: ParamsOf<'guest.backup.config'>, context: CommandContext): Promise<ResultOf<'guest.backup.config'>> {
    return readBackupConfig(await requireActive(PVE_HOST, storage), file, context.signal);
  }

  /** PVE allocates the container's volumes, unpacks the root and cleans up after a failure itself. */
  async restore({ guest, storage, file, restore }: ParamsOf<'guest.restore'>, context: CommandContext): Promise<void> {
    if (guest.type === 'qemu')
      throw new CommandFailure('unavailable', 'restores of VMs on the pve driver are not supported yet: qmrestore reads only VMA archives');
    refuseUnrestorable(guest, file, restore);
    const archive = join(await requireActive(PVE_HOST, storage), file);
    await this.run('pct', restoreArguments(guest, archive, restore), context);
  }
}

/** The names of the container's archives in the dump folder (not vzdump's temporary files, logs or notes). */
async function archivesOf(dumpdir: string, vmid: number): Promise<string[]> {
  return (await readdir(dumpdir)).filter((name) => name.startsWith(`vzdump-lxc-${vmid}-`) && BackupFile.safeParse(`dump/${name}`).success);
}
