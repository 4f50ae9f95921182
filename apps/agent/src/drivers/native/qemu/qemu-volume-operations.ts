import { rm } from 'node:fs/promises';
import type { GuestVolume, ParamsOf } from '@corral/protocol';
import { CommandFailure } from '../../../host/command-failure.js';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { refusedWhileRunning, removingVolume, resizedVolume, shrinkingRefused } from '../../guest-messages.js';
import { removeEmptyGuestFolder } from '../../guest-volumes.js';
import type { VolumeOperations } from '../../volume-operations.js';
import { convertImagePlan, createImagePlan, imageFormat, makeImages } from './qemu-images.js';
import { QemuVm } from './qemu-vm.js';

/** `qemu-img info` answers at once unless the file system hangs. */
const INFO_TIMEOUT_MS = 60_000;

/**
 * The volumes of the native driver's VMs: qemu-img images made, removed, grown (through QMP
 * `block_resize` while the VM runs, so the guest sees the new size at once) and copied.
 */
export class QemuVolumeOperations implements VolumeOperations {
  constructor(private readonly host: Host) {}

  async allocate({ vmid, volumes }: ParamsOf<'guest.volume.allocate'>, context: CommandContext): Promise<void> {
    await makeImages(
      this.host,
      vmid,
      volumes.map((volume) => createImagePlan(this.host, vmid, volume)),
      context,
    );
  }

  async free({ vmid, volumes }: ParamsOf<'guest.volume.free'>, context: CommandContext): Promise<void> {
    for (const volume of volumes) await this.remove(vmid, volume, context);
  }

  async resize({ vmid, volume, size }: ParamsOf<'guest.volume.resize'>, context: CommandContext): Promise<void> {
    const vm = new QemuVm(this.host, vmid);
    const device = `drive-${volume.key}`;
    if ((await vm.runningPid()) !== undefined) {
      await vm.qmp(`could not resize ${volume.key}`, context.signal, async (qmp) => {
        refuseShrinking(volume, size, await attachedSize(await qmp.execute('query-block'), device));
        await qmp.execute('block_resize', { device, size });
      });
      context.log(resizedVolume(volume, size, true));
      return;
    }
    const path = hostPath(this.host, volume.path);
    const format = imageFormat(vmid, volume);
    const info = await runChecked('qemu-img', ['info', '--output=json', '-f', format, path], {
      signal: context.signal,
      timeoutMs: INFO_TIMEOUT_MS,
    });
    refuseShrinking(volume, size, Number((JSON.parse(info.stdout) as { 'virtual-size'?: unknown })['virtual-size']));
    await runChecked('qemu-img', ['resize', '-f', format, path, String(size)], {
      signal: context.signal,
      onLine: context.log,
      timeoutMs: INFO_TIMEOUT_MS,
    });
    context.log(resizedVolume(volume, size, false));
  }

  /** A copy by `qemu-img convert` (a linked clone's base copied in); the source goes only once the copy is whole. */
  async move({ vmid, source, target, targetVmid, delete: remove }: ParamsOf<'guest.volume.move'>, context: CommandContext): Promise<void> {
    if ((await new QemuVm(this.host, vmid).runningPid()) !== undefined)
      throw new CommandFailure('invalid-params', refusedWhileRunning('qemu', vmid, 'move'));
    await makeImages(this.host, targetVmid, [convertImagePlan(this.host, vmid, source, target)], context);
    if (remove) await this.remove(vmid, source, context);
  }

  private async remove(vmid: number, volume: GuestVolume, context: CommandContext): Promise<void> {
    const path = hostPath(this.host, volume.path);
    await rm(path, { force: true });
    await removeEmptyGuestFolder(path, vmid);
    context.log(removingVolume('qemu', volume));
  }
}

/** The virtual size of the drive `device` in QMP `query-block`'s answer. */
function attachedSize(blocks: unknown, device: string): number {
  const block = (blocks as { device?: string; inserted?: { image?: { 'virtual-size'?: number } } }[]).find(
    (candidate) => candidate.device === device,
  );
  const size = block?.inserted?.image?.['virtual-size'];
  if (size === undefined)
    throw new CommandFailure(
      'invalid-params',
      `the running VM has no drive ${device}: a disk added while it ran is attached at its next start`,
    );
  return size;
}

function refuseShrinking(volume: GuestVolume, size: number, current: number): void {
  if (size < current) throw new CommandFailure('invalid-params', shrinkingRefused(volume, size, current));
}
