import type { GuestType, GuestVolume, ParamsOf } from '@corral/protocol';
import { basename } from 'node:path';
import { CommandFailure } from '../../host/command-failure.js';
import type { CommandContext } from '../command-context.js';
import type { VolumeOperations } from '../volume-operations.js';
import type { PveRunner } from './pve-backups.js';

/**
 * The `pve` driver's volumes of existing guests: PVE's own commands, so that PVE's storage layer
 * does the work. New volumes and removals go through `pvesm` with Corral's names (`pvesm alloc`
 * takes the name; its size is in KiB), resizes and moves through `qm`/`pct`, which need the disk in
 * PVE's own config of the guest. Sizes are bytes (a size without unit).
 */
export class PveVolumes implements VolumeOperations {
  constructor(private readonly run: PveRunner) {}

  /** One `pvesm alloc` per volume; when one fails, those made before it are freed again. */
  async allocate({ vmid, volumes }: ParamsOf<'guest.volume.allocate'>, context: CommandContext): Promise<void> {
    const efivars = volumes.find((volume) => volume.efivars !== undefined);
    // pvesm alloc makes an empty image, where PVE copies OVMF's vars template into a new EFI disk.
    if (efivars !== undefined)
      throw new CommandFailure(
        'unavailable',
        `the pve driver does not add an EFI disk (${efivars.key}) to an existing VM yet: give it when the VM is created`,
      );
    const made: GuestVolume[] = [];
    try {
      for (const volume of volumes) {
        await this.run(
          'pvesm',
          [
            'alloc',
            storageOf(volume),
            String(vmid),
            basename(volume.volid),
            String(Math.ceil(volume.size / 1024)),
            '--format',
            volume.format,
          ],
          context,
        );
        made.push(volume);
      }
    } catch (error) {
      for (const volume of made) await this.run('pvesm', ['free', volume.volid], context).catch(() => undefined);
      throw error;
    }
  }

  async free({ volumes }: ParamsOf<'guest.volume.free'>, context: CommandContext): Promise<void> {
    for (const volume of volumes) await this.run('pvesm', ['free', volume.volid], context);
  }

  async resize({ type, vmid, volume, size }: ParamsOf<'guest.volume.resize'>, context: CommandContext): Promise<void> {
    await this.run(tool(type), ['resize', String(vmid), volume.key, String(size)], context);
  }

  /** `qm disk move <vmid> <disk> <storage> --format F` or `--target-vmid N --target-disk K`; `pct move-volume` likewise. */
  async move(
    { type, vmid, source, target, targetVmid, delete: remove }: ParamsOf<'guest.volume.move'>,
    context: CommandContext,
  ): Promise<void> {
    const command = type === 'qemu' ? ['disk', 'move'] : ['move-volume'];
    const where =
      targetVmid === vmid
        ? [storageOf(target), ...(type === 'qemu' ? ['--format', target.format] : [])]
        : ['--target-vmid', String(targetVmid), type === 'qemu' ? '--target-disk' : '--target-volume', target.key];
    await this.run(tool(type), [...command, String(vmid), source.key, ...where, ...(remove ? ['--delete', '1'] : [])], context);
  }
}

function storageOf(volume: GuestVolume): string {
  return volume.volid.slice(0, volume.volid.indexOf(':'));
}

function tool(type: GuestType): 'qm' | 'pct' {
  return type === 'qemu' ? 'qm' : 'pct';
}
