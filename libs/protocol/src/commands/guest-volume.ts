import { z } from 'zod';
import type { CommandDefinition } from '../command-definition.js';
import { Bytes, Vmid } from '../fields.js';
import { GuestType, GuestVolume } from './guest.js';

/*
 * The volumes of a guest that exists (docs/guests.md "Volumes of an existing guest"): the control
 * plane decides names, sizes and what the config says; these commands only make, grow, copy and
 * remove the volumes on the node. Each names its guest, whose config the control plane changes
 * once the command has succeeded (or, for `guest.volume.free`, before it runs).
 */

const Guest = { type: GuestType, vmid: Vmid };

export const guestVolumeAllocate = {
  description:
    'Make new empty volumes of a guest: QEMU images of their size and format (`qemu-img create`), container volumes as empty directories. A volume that exists is refused before anything is made, and when one fails those made before it are removed. The `pve` driver runs `pvesm alloc`.',
  params: z.strictObject({ ...Guest, volumes: z.array(GuestVolume).min(1).max(64) }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestVolumeFree = {
  description:
    "Remove volumes that the guest's config no longer names: an image file, or a container volume's directory; one already gone is fine. The `pve` driver runs `pvesm free`.",
  params: z.strictObject({ ...Guest, volumes: z.array(GuestVolume).min(1).max(64) }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestVolumeResize = {
  description:
    "Grow a volume to `size` bytes: a QEMU image with `qemu-img resize`, or while the VM runs through QMP `block_resize` (the guest sees the new size at once). A container's directory has no size of its own: only the config records it. A size below the volume's is refused. The `pve` driver runs `qm resize` / `pct resize`.",
  params: z.strictObject({ ...Guest, volume: GuestVolume, size: Bytes }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestVolumeMove = {
  description:
    'Copy a volume of a stopped guest into the new volume `target` (on another storage, in another format, or of the guest `targetVmid`), then with `delete` remove the source. A volume at `target` that exists is refused; a failed copy removes what it wrote. Refused while the guest runs. The `pve` driver runs `qm disk move` / `pct move-volume`.',
  params: z.strictObject({ ...Guest, source: GuestVolume, target: GuestVolume, targetVmid: Vmid, delete: z.boolean() }),
  result: z.null(),
} satisfies CommandDefinition;
