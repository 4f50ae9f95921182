import { rm } from 'node:fs/promises';
import type { GuestSpec, GuestVolume, ParamsOf, ResultOf } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { copyingToNode, guestLabel, removingVolume } from '../../guest-messages.js';
import type { GuestMigration } from '../../guest-migration.js';
import { removeEmptyGuestFolder, volumeOf } from '../../guest-volumes.js';
import { makeVolumeDirectory, removeVolume, type Undo } from './lxc-volumes.js';
import type { NativeLxc } from './native-lxc.js';
import { sendVolume, VolumeReceiver } from './volume-transfer.js';

/** Packing or unpacking a root file system of a few GiB on a slow disk. */
const ARCHIVE_LIMIT_MS = 24 * 3600_000;
/** GNU tar's options that keep what a container's tree holds: numeric owners, file capabilities and user attributes. */
const KEEP = ['--numeric-owner', '--xattrs', '--xattrs-include=user.*', '--xattrs-include=security.capability'];

/**
 * The native driver's container migration (libs/protocol guest-migrate.ts; docs/guests.md
 * "Migration"): always offline. The target makes the empty directories of the volumes that move
 * and receives each as a tar archive on the port it answers as `nbdPort` (volume-transfer.ts); the
 * source packs each volume, sends it, and once all arrived removes them and its container. The
 * target's `finish` writes the container's config; `abort` removes the directories it made.
 */
export class LxcMigration implements GuestMigration {
  /** The migrations under way to this node, by vmid: what receives their volumes, and what stops its unpacking. */
  private readonly receiving = new Map<number, { receiver: VolumeReceiver; unpacking: AbortController }>();

  constructor(
    private readonly host: Host,
    private readonly lxc: NativeLxc,
  ) {}

  async receive(
    { guest, copy, online, listen }: ParamsOf<'guest.migrate.receive'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.receive'>> {
    refuseOnline(guest, online);
    await this.lxc.refuseExisting(guest.vmid);
    const volumes = copy.map((key) => volumeOf(guest, key));
    const made: Undo[] = [];
    try {
      for (const volume of volumes) made.push(await makeVolumeDirectory(this.host, guest.vmid, volume));
      // The volumes arrive after this command ended: their unpacking lasts until finish or abort.
      const unpacking = new AbortController();
      const sink = {
        archiveOf: (key: string) => (copy.includes(key) ? this.archiveOf(volumeOf(guest, key)) : undefined),
        unpack: (key: string, archive: string) => this.unpack(archive, volumeOf(guest, key), unpacking.signal),
      };
      const receiver = await VolumeReceiver.listen(listen, sink);
      this.receiving.set(guest.vmid, { receiver, unpacking });
      context.log(`receiving ${guestLabel('lxc', guest.vmid)} on ${listen}: volumes on port ${receiver.port}`);
      return { nbdPort: receiver.port };
    } catch (error) {
      for (const undo of made.reverse()) await undo().catch((cleanup: Error) => context.log(cleanup.message));
      throw error;
    }
  }

  async send(
    { guest, copy, online, target }: ParamsOf<'guest.migrate.send'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.send'>> {
    refuseOnline(guest, online);
    if (!(await this.lxc.stopped(guest.vmid, context.signal)))
      throw new Error(`${guestLabel('lxc', guest.vmid)} is running: a container moves stopped (PVE's restart mode shuts it down first)`);
    const volumes = copy.map((key) => volumeOf(guest, key));
    for (const volume of volumes) {
      context.log(copyingToNode(volume, target.node));
      const archive = this.archiveOf(volume);
      try {
        await runChecked('tar', ['-c', '-f', archive, '-C', hostPath(this.host, volume.path), ...KEEP, '.'], {
          signal: context.signal,
          timeoutMs: ARCHIVE_LIMIT_MS,
        });
        await sendVolume({ address: target.address, port: target.nbdPort }, volume.key, archive, context.signal);
      } catch (error) {
        throw new Error(`${guestLabel('lxc', guest.vmid)}: could not copy volume ${volume.key}: ${(error as Error).message}`);
      } finally {
        await rm(archive, { force: true });
      }
    }
    for (const volume of volumes) {
      context.log(removingVolume('lxc', volume));
      await removeVolume(this.host, guest.vmid, volume, context.signal);
      await removeEmptyGuestFolder(hostPath(this.host, volume.path), guest.vmid);
    }
    await this.lxc.forget(guest.vmid, context.signal);
    return { state: 'stopped' };
  }

  /** The volumes arrived: the container's config makes it this node's. */
  async finish({ guest }: ParamsOf<'guest.migrate.finish'>, context: CommandContext): Promise<void> {
    await this.stopReceiving(guest.vmid);
    await this.lxc.build(guest, [], async () => undefined, context);
  }

  /** Removes the directories `receive` made; a container that lives here (its config exists) is left alone. */
  async abort({ guest, copy }: ParamsOf<'guest.migrate.abort'>, context: CommandContext): Promise<void> {
    await this.stopReceiving(guest.vmid);
    if (await this.lxc.exists(guest.vmid)) {
      context.log(`${guestLabel('lxc', guest.vmid)} lives on this node, not as the target of a migration: it is left alone`);
      return;
    }
    for (const volume of copy.map((key) => volumeOf(guest, key))) {
      await rm(this.archiveOf(volume), { force: true });
      await removeVolume(this.host, guest.vmid, volume, context.signal);
      await removeEmptyGuestFolder(hostPath(this.host, volume.path), guest.vmid);
      context.log(removingVolume('lxc', volume));
    }
  }

  private async unpack(archive: string, volume: GuestVolume, signal: AbortSignal): Promise<void> {
    try {
      await runChecked('tar', ['-x', '-f', archive, '-C', hostPath(this.host, volume.path), ...KEEP], {
        signal,
        timeoutMs: ARCHIVE_LIMIT_MS,
      });
    } finally {
      await rm(archive, { force: true });
    }
  }

  private async stopReceiving(vmid: number): Promise<void> {
    const session = this.receiving.get(vmid);
    this.receiving.delete(vmid);
    session?.unpacking.abort();
    await session?.receiver.close();
  }

  /** The archive of a volume in transit, beside its directory. */
  private archiveOf(volume: GuestVolume): string {
    return `${hostPath(this.host, volume.path)}.corral-migrate.tar`;
  }
}

function refuseOnline(guest: GuestSpec, online: boolean): void {
  if (online) throw new Error(`${guestLabel('lxc', guest.vmid)}: lxc live migration is currently not implemented`);
}
