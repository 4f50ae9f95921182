import { statusEntry } from '../../guests/status-entry.js';
import type { GuestState } from '../../inventory/guests/guest-view.js';
import type { ResourceEntry } from './resources.endpoints.js';

/** A guest's `/cluster/resources` entry; `pool`, the pool it is in. */
export function guestEntry(state: GuestState, pool: string | undefined): ResourceEntry {
  const status = statusEntry(state);
  const { row } = state;
  return {
    id: `${row.type}/${row.vmid}`,
    type: row.type,
    node: row.node,
    vmid: row.vmid,
    name: status.name,
    status: status.status,
    template: status.template ?? 0,
    cpu: status.cpu,
    maxcpu: status.cpus,
    mem: status.mem,
    maxmem: status.maxmem,
    disk: status.disk,
    maxdisk: status.maxdisk,
    uptime: status.uptime,
    netin: status.netin,
    netout: status.netout,
    diskread: status.diskread,
    diskwrite: status.diskwrite,
    ...(status.lock !== undefined ? { lock: status.lock } : {}),
    ...(status.tags !== undefined ? { tags: status.tags } : {}),
    ...(pool !== undefined ? { pool } : {}),
  };
}
