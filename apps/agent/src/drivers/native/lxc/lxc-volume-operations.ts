import type { GuestVolume, ParamsOf } from '@corral/protocol';
import { CommandFailure } from '../../../host/command-failure.js';
import { hostPath, type Host } from '../../../host/host.js';
import type { CommandContext } from '../../command-context.js';
import { refusedWhileRunning, removingVolume, resizedVolume } from '../../guest-messages.js';
import { removeEmptyGuestFolder } from '../../guest-volumes.js';
import type { VolumeOperations } from '../../volume-operations.js';
import { copyVolume, makeVolumeDirectory, removeVolume, statOf, type Undo } from './lxc-volumes.js';

/**
 * The volumes of the native driver's containers: directories (`subvol`), made empty, removed,
 * copied. A directory has no size of its own, so a resize only checks that it is there: the size
 * is what the control plane's config records.
 */
export class LxcVolumeOperations implements VolumeOperations {
  constructor(
    private readonly host: Host,
    /** Whether the container runs (or is frozen). */
    private readonly running: (vmid: number, signal: AbortSignal) => Promise<boolean>,
  ) {}

  async allocate({ vmid, volumes }: ParamsOf<'guest.volume.allocate'>, context: CommandContext): Promise<void> {
    await this.made(
      volumes.map((volume) => () => makeVolumeDirectory(this.host, vmid, volume)),
      async () => undefined,
      context,
    );
  }

  async free({ vmid, volumes }: ParamsOf<'guest.volume.free'>, context: CommandContext): Promise<void> {
    for (const volume of volumes) await this.remove(vmid, volume, context);
  }

  async resize({ volume, size }: ParamsOf<'guest.volume.resize'>, context: CommandContext): Promise<void> {
    if ((await statOf(hostPath(this.host, volume.path)))?.isDirectory() !== true)
      throw new Error(`volume ${volume.volid} is missing: ${volume.path} is not a directory`);
    context.log(resizedVolume(volume, size, false));
  }

  async move({ vmid, source, target, targetVmid, delete: remove }: ParamsOf<'guest.volume.move'>, context: CommandContext): Promise<void> {
    if (await this.running(vmid, context.signal)) throw new CommandFailure('invalid-params', refusedWhileRunning('lxc', vmid, 'move'));
    await this.made(
      [() => makeVolumeDirectory(this.host, targetVmid, target)],
      () => copyVolume(this.host, source, target, context),
      context,
    );
    if (remove) await this.remove(vmid, source, context);
  }

  /** Makes the directories, then fills them; when anything fails, what was made is removed again. */
  private async made(steps: readonly (() => Promise<Undo>)[], fill: () => Promise<void>, context: CommandContext): Promise<void> {
    const undo: Undo[] = [];
    try {
      for (const step of steps) undo.push(await step());
      await fill();
    } catch (error) {
      for (const step of undo.reverse()) await step().catch((failure: Error) => context.log(`could not clean up: ${failure.message}`));
      throw error;
    }
  }

  private async remove(vmid: number, volume: GuestVolume, context: CommandContext): Promise<void> {
    context.log(removingVolume('lxc', volume));
    await removeVolume(this.host, vmid, volume, context.signal);
    await removeEmptyGuestFolder(hostPath(this.host, volume.path), vmid);
  }
}
