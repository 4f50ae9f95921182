import { z } from 'zod';
import type { CommandDefinition } from '../command-definition.js';
import { GuestSpec } from './guest.js';

/*
 * Snapshots of a guest's volumes (docs/guests.md "Snapshots"). The control plane keeps the
 * snapshots' metadata (name, parent, description, the config at the time); the agent keeps their
 * data, the driver's way: qcow2 internal snapshots for the native driver's VMs, copies of the root
 * directories for its containers, `qm`/`pct` for the pve driver. A snapshot is taken, rolled back
 * or deleted on every volume of the guest or on none.
 */

/** PVE's snapshot name (`pve-configid`, at most 40): it reaches qemu-img, QMP and `qm` as one argument and a folder name. */
export const SnapshotName = z
  .string()
  .max(40)
  .regex(/^[A-Za-z][A-Za-z0-9_-]+$/, 'must be a snapshot name (a letter, then letters, digits, _ or -)');

export const guestSnapshotCreate = {
  description:
    "Take snapshot `snapname` of every volume of the guest, running or stopped (a running container is frozen meanwhile). With `vmstate`, a running VM's memory and device state are saved too, and a rollback resumes it. A volume that cannot snapshot (a raw image) refuses it before anything is taken; a snapshot of that name on any volume is refused; when one volume fails, the snapshots taken of the others are removed again.",
  params: z.strictObject({ guest: GuestSpec, snapname: SnapshotName, vmstate: z.boolean() }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestSnapshotRollback = {
  description:
    "Return every volume of the stopped guest to snapshot `snapname` (the guest is refused while it runs: the control plane stops it first). `guest` is the configuration the guest has after the rollback, the snapshot's. With `vmstate` (the snapshot saved a VM's memory), the VM is started again in the saved state; else with `start` it is started afresh. Every volume is checked to hold the snapshot before any is changed.",
  params: z.strictObject({ guest: GuestSpec, snapname: SnapshotName, vmstate: z.boolean(), start: z.boolean() }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestSnapshotDelete = {
  description:
    'Remove snapshot `snapname` from every volume of the guest, running or stopped. A volume that lacks it is skipped (a snapshot half removed before can be removed again).',
  params: z.strictObject({ guest: GuestSpec, snapname: SnapshotName }),
  result: z.null(),
} satisfies CommandDefinition;
