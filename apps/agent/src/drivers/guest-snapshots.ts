import type { GuestSpec, GuestVolume, ParamsOf } from '@corral/protocol';
import type { CommandContext } from './command-context.js';
import { snapshotNotAvailable } from './guest-messages.js';
import { ownVolumes } from './guest-volumes.js';

/**
 * A driver's snapshots of a guest's volumes (the `guest.snapshot.*` commands; what each does is in
 * libs/protocol's guest-snapshot.ts). Errors are thrown as by the other driver methods, as the
 * task's end text.
 */
export interface GuestSnapshots {
  create(params: ParamsOf<'guest.snapshot.create'>, context: CommandContext): Promise<void>;
  rollback(params: ParamsOf<'guest.snapshot.rollback'>, context: CommandContext): Promise<void>;
  delete(params: ParamsOf<'guest.snapshot.delete'>, context: CommandContext): Promise<void>;
}

/**
 * The volumes a snapshot covers, or PVE's refusal ("snapshot feature is not available") for a guest
 * with one that cannot snapshot: a VM's disks but its CD-ROMs (shared ISO images), each a qcow2
 * image; a container's volumes, directories (copied, on directory storages).
 */
export function snapshotVolumes(guest: GuestSpec): GuestVolume[] {
  const volumes = ownVolumes(guest);
  const refused = volumes.find((volume) => volume.format !== (guest.type === 'qemu' ? 'qcow2' : 'subvol'));
  if (refused !== undefined) throw new Error(snapshotNotAvailable(refused));
  return volumes;
}
