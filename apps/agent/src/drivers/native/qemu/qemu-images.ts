import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { GuestVolume } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { madeReadOnly, volumeExists } from '../../guest-messages.js';
import { vmFailure } from './vm-failure.js';

/** One image to make: the volume it becomes and the `qemu-img` arguments that make it. */
export interface ImagePlan {
  readonly volume: GuestVolume;
  readonly args: string[];
}

/** A copy of a large disk (a full clone, a restore) takes long: the request's own signal bounds it, this only catches a hung qemu-img. */
export const COPY_LIMIT_MS = 24 * 3600_000;

/**
 * `qemu-img create` for a new volume: an empty image of its size, or for a linked clone a qcow2
 * overlay of its base. The base's format is named (`-F`), never probed: probing a raw image a
 * guest wrote could read a qcow2 header the guest forged.
 */
export function createImagePlan(host: Host, vmid: number, volume: GuestVolume): ImagePlan {
  const format = imageFormat(vmid, volume);
  if (volume.base !== undefined && format !== 'qcow2')
    throw new Error(`VM ${vmid}: volume ${volume.key} is a linked clone, so it must be qcow2, not ${format}`);
  const backing = volume.base === undefined ? [] : ['-F', baseFormat(vmid, volume.key, volume.base), '-b', hostPath(host, volume.base)];
  return { volume, args: ['create', '-f', format, ...backing, hostPath(host, volume.path), String(volume.size)] };
}

/** `qemu-img convert` for a full clone: a copy of `source` that stands alone (a linked clone's base is copied in). */
export function convertImagePlan(host: Host, vmid: number, source: GuestVolume, target: GuestVolume): ImagePlan {
  return {
    volume: target,
    args: [
      'convert',
      '-f',
      imageFormat(vmid, source),
      '-O',
      imageFormat(vmid, target),
      hostPath(host, source.path),
      hostPath(host, target.path),
    ],
  };
}

/** `qemu-img convert` of a restore: a volume from its disk's image in a backup archive, qcow2 as the archive holds them. */
export function restoreImagePlan(host: Host, vmid: number, image: string, target: GuestVolume): ImagePlan {
  return { volume: target, args: ['convert', '-f', 'qcow2', '-O', imageFormat(vmid, target), image, hostPath(host, target.path)] };
}

/**
 * Makes the images of VM `vmid`, all or none: an existing file is refused before anything is
 * made (qemu-img would overwrite it), and when one fails the ones made before it are removed.
 * qemu-img's lines go to the task log, as PVE's `Formatting ...`.
 */
export async function makeImages(host: Host, vmid: number, plans: readonly ImagePlan[], { signal, log }: CommandContext): Promise<void> {
  await refuseExisting(
    host,
    vmid,
    plans.map((plan) => plan.volume),
  );
  const made: string[] = [];
  for (const { volume, args } of plans) {
    const path = hostPath(host, volume.path);
    try {
      await mkdir(dirname(path), { recursive: true });
      made.push(path);
      await runChecked('qemu-img', args, { signal, onLine: log, timeoutMs: COPY_LIMIT_MS });
    } catch (error) {
      await Promise.all(made.map((file) => rm(file, { force: true })));
      throw vmFailure(vmid, `could not make volume ${volume.key}`, error);
    }
  }
}

/** A template's images are read-only bases, so that nothing writes to what linked clones read. */
export async function makeReadOnly(host: Host, volumes: readonly GuestVolume[], log: (line: string) => void): Promise<void> {
  for (const volume of volumes) {
    await chmod(hostPath(host, volume.path), 0o444);
    log(madeReadOnly(volume));
  }
}

/** Refuses volumes of VM `vmid` whose file exists (qemu-img would overwrite it), before anything is made. */
export async function refuseExisting(host: Host, vmid: number, volumes: readonly GuestVolume[]): Promise<void> {
  for (const volume of volumes) {
    if (await exists(hostPath(host, volume.path))) throw new Error(volumeExists('qemu', vmid, volume));
  }
}

export function imageFormat(vmid: number, volume: GuestVolume): 'qcow2' | 'raw' {
  if (volume.format === 'subvol') throw new Error(`VM ${vmid}: volume ${volume.key} must be a qcow2 or raw image, not a subvol`);
  return volume.format;
}

/** PVE's volume names end in their format (`base-100-disk-0.qcow2`). */
function baseFormat(vmid: number, key: string, base: string): 'qcow2' | 'raw' {
  const format = /\.(qcow2|raw)$/.exec(base)?.[1];
  if (format !== 'qcow2' && format !== 'raw')
    throw new Error(`VM ${vmid}: the base image of volume ${key}, ${base}, is neither .qcow2 nor .raw`);
  return format;
}

/** Any entry counts, a dangling symbolic link too: qemu-img would write through it. */
async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
