import type { GuestType, GuestVolume } from '@corral/protocol';
import { copyingVolume } from '../guest-messages.js';

/**
 * The task log line of a volume that a create or a clone makes, if any, as the native driver's
 * log has it: for a VM qemu-img's own line for a new image or overlay (a full copy, by qemu-img
 * convert, says nothing), for a container the line of its copy.
 */
export function madeVolumeLine(type: GuestType, volume: GuestVolume, from: GuestVolume | undefined): string | undefined {
  if (type === 'lxc') return from === undefined ? undefined : copyingVolume(from, volume);
  if (from !== undefined && volume.base === undefined) return undefined;
  if (volume.format !== 'qcow2') return `Formatting '${volume.path}', fmt=${volume.format} size=${volume.size}`;
  const backing = volume.base === undefined ? '' : ` backing_file=${volume.base} backing_fmt=qcow2`;
  return `Formatting '${volume.path}', fmt=qcow2 cluster_size=65536 extended_l2=off compression_type=zlib size=${volume.size}${backing} lazy_refcounts=off refcount_bits=16`;
}
