import type { GuestSnapshots } from '../guest-snapshots.js';
import { tool } from './pve-arguments.js';
import type { PveRunner } from './pve-backups.js';

/**
 * The `pve` driver's snapshots: PVE's own `qm snapshot` / `qm rollback` / `qm delsnapshot` (`pct`
 * for containers), which keep the snapshot in PVE's config too and refuse what PVE refuses
 * (a raw disk: "snapshot feature is not available"). `qm rollback` with a saved state starts the VM
 * in it by itself.
 */
export function pveSnapshots(run: PveRunner): GuestSnapshots {
  return {
    create: async ({ guest, snapname, vmstate }, context) => {
      await run(
        tool(guest.type),
        ['snapshot', String(guest.vmid), snapname, ...(vmstate && guest.type === 'qemu' ? ['--vmstate', '1'] : [])],
        context,
      );
    },
    rollback: async ({ guest, snapname, start }, context) => {
      await run(tool(guest.type), ['rollback', String(guest.vmid), snapname, ...(start ? ['--start', '1'] : [])], context);
    },
    delete: async ({ guest, snapname }, context) => {
      await run(tool(guest.type), ['delsnapshot', String(guest.vmid), snapname], context);
    },
  };
}
