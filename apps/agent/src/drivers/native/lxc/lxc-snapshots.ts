import { mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { GuestSpec, GuestVolume, ParamsOf } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { refusedWhileRunning, snapshotLine, snapshotMissing, snapshotNameUsed } from '../../guest-messages.js';
import { snapshotVolumes, type GuestSnapshots } from '../../guest-snapshots.js';
import type { LxcTools } from './lxc-tools.js';
import { makeFolder, removeTree, statOf, type Undo } from './lxc-volumes.js';

/** The folder beside a container's volumes that holds the copies: `<storage>/images/<vmid>/.snapshots/<snapname>/<volume>`. */
const SNAPSHOTS = '.snapshots';
/** Where a rollback copies a snapshot before it swaps it in, and where the replaced tree waits for its removal. */
const STAGING = '.rollback';
const REPLACED = '.replaced';
/** Copying a root file system of a few GiB on a slow disk. */
const COPY_TIMEOUT_MS = 30 * 60_000;
/** Thawing runs after the request's signal may have fired, so it gets a signal of its own. */
const THAW_TIMEOUT_MS = 5 * 60_000;

/**
 * The native driver's container snapshots on directory storages, which have no snapshots of their
 * own: a snapshot is a copy of each volume's directory tree (`cp -a --reflink=auto`: owners,
 * modes, links, ACLs and extended attributes; blocks shared where the file system can, as btrfs
 * and xfs do, else a full copy) into `.snapshots/<snapname>/` beside the volume. A running
 * container is frozen (`lxc-freeze`) while it is copied, so the copy is of one moment, and thawed
 * after. A rollback copies the snapshot back beside the volume and swaps it in by renames once
 * every volume's copy is made; a failed copy leaves the volumes as they were.
 */
export class LxcSnapshots implements GuestSnapshots {
  constructor(
    private readonly host: Host,
    private readonly tools: LxcTools,
    private readonly start: (guest: GuestSpec, context: CommandContext) => Promise<void>,
  ) {}

  async create({ guest, snapname }: ParamsOf<'guest.snapshot.create'>, context: CommandContext): Promise<void> {
    const volumes = snapshotVolumes(guest);
    for (const volume of volumes) {
      if ((await statOf(this.copyOf(volume, snapname))) !== undefined) throw new Error(snapshotNameUsed(snapname, volume));
    }
    const frozen = (await this.tools.state(guest.vmid, context.signal)) === 'RUNNING';
    if (frozen) {
      context.log(`freezing CT ${guest.vmid} for the copy`);
      await this.tools.check('lxc-freeze', guest.vmid, [], { signal: context.signal });
    }
    const undo: Undo[] = [];
    try {
      for (const volume of volumes) {
        const copy = this.copyOf(volume, snapname);
        undo.push(await makeFolder(copy));
        await copyTree(hostPath(this.host, volume.path), copy, context.signal);
        context.log(snapshotLine('created', snapname, volume));
      }
    } catch (error) {
      for (const step of undo.reverse()) await step().catch((failure: Error) => context.log(failure.message));
      throw error;
    } finally {
      if (frozen) await this.tools.check('lxc-unfreeze', guest.vmid, [], { signal: AbortSignal.timeout(THAW_TIMEOUT_MS) });
    }
  }

  async rollback({ guest, snapname, start }: ParamsOf<'guest.snapshot.rollback'>, context: CommandContext): Promise<void> {
    if ((await this.tools.state(guest.vmid, context.signal)) !== 'STOPPED')
      throw new Error(refusedWhileRunning('lxc', guest.vmid, 'rollback'));
    const volumes = snapshotVolumes(guest);
    for (const volume of volumes) {
      if ((await statOf(this.copyOf(volume, snapname)))?.isDirectory() !== true) throw new Error(snapshotMissing(snapname, volume));
    }
    // Every copy made before any volume changes: a failure here leaves the volumes as they were.
    const staged: Undo[] = [];
    try {
      for (const volume of volumes) {
        const staging = this.besides(volume, STAGING);
        await removeTree(staging, context.signal); // a crashed rollback's
        staged.push(await makeFolder(staging));
        await copyTree(this.copyOf(volume, snapname), staging, context.signal);
      }
    } catch (error) {
      for (const step of staged.reverse()) await step().catch((failure: Error) => context.log(failure.message));
      throw error;
    }
    for (const volume of volumes) {
      const current = hostPath(this.host, volume.path);
      const replaced = this.besides(volume, REPLACED);
      await removeTree(replaced, context.signal);
      await mkdir(dirname(replaced), { recursive: true });
      await rename(current, replaced);
      await rename(this.besides(volume, STAGING), current);
      await removeTree(replaced, context.signal);
      await removeEmpty(dirname(replaced));
      await removeEmpty(dirname(this.besides(volume, STAGING)));
      context.log(snapshotLine('rolled back to', snapname, volume));
    }
    if (start) await this.start(guest, context);
  }

  async delete({ guest, snapname }: ParamsOf<'guest.snapshot.delete'>, context: CommandContext): Promise<void> {
    for (const volume of snapshotVolumes(guest)) {
      const copy = this.copyOf(volume, snapname);
      if ((await statOf(copy)) === undefined) {
        context.log(`${volume.volid}: has no snapshot '${snapname}'`);
        continue;
      }
      await removeTree(copy, context.signal);
      await removeEmpty(dirname(copy));
      await removeEmpty(dirname(dirname(copy)));
      context.log(snapshotLine('deleted', snapname, volume));
    }
  }

  /** Removes every snapshot of the container's volumes (its destroy). */
  async removeAll(guest: GuestSpec, signal: AbortSignal): Promise<void> {
    for (const volume of guest.volumes) await removeTree(this.snapshotsFolder(volume), signal);
  }

  /** `<folder of the volume>/.snapshots`: one per guest folder (`images/<vmid>`), shared by its volumes. */
  private snapshotsFolder(volume: GuestVolume): string {
    return join(dirname(hostPath(this.host, volume.path)), SNAPSHOTS);
  }

  private copyOf(volume: GuestVolume, snapname: string): string {
    return join(this.snapshotsFolder(volume), snapname, basename(volume.path));
  }

  /** A rollback's working folder for the volume, inside the snapshots folder (the same file system as the volume: renames swap). */
  private besides(volume: GuestVolume, purpose: string): string {
    return join(this.snapshotsFolder(volume), purpose, basename(volume.path));
  }
}

/** The whole tree of `from` into the empty folder `to`, as `cp -a` copies it, sharing blocks where the file system can. */
async function copyTree(from: string, to: string, signal: AbortSignal): Promise<void> {
  await runChecked('cp', ['-a', '--reflink=auto', '--', `${from}/.`, to], { signal, timeoutMs: COPY_TIMEOUT_MS });
}

/** Removes a folder once nothing is left in it. */
async function removeEmpty(folder: string): Promise<void> {
  if ((await readdir(folder).catch(() => ['?'])).length === 0) await rmdir(folder).catch(() => undefined);
}
