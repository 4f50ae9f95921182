import type { GuestStatus } from './guest.endpoints.js';
import type { GuestState } from '../inventory/guests/guest-view.js';
import { GUEST_DEFAULTS } from './guest-spec.js';
import { parseDisk, parseMount, parseSize } from '@corral/pve-formats';
import { guestAgentEnabled } from './agent/agent-config.js';

/** The run state of a guest: live where this replica holds its agent, else as last written. */
export function runState(state: GuestState): 'running' | 'stopped' | 'paused' {
  return state.runtime?.status ?? state.row.status;
}

/**
 * A guest as PVE's lists and `status/current` show it: a paused VM is `running`
 * with `qmpstatus: paused`; sizes in bytes; `disk` 0 for VMs (PVE cannot see inside).
 */
export function statusEntry(state: GuestState): GuestStatus {
  const { row, runtime } = state;
  const { config } = row;
  const qemu = row.type === 'qemu';
  const run = runState(state);
  const MiB = 1024 * 1024;
  const live = run !== 'stopped' ? runtime : undefined;
  const tags = config['tags'];
  return {
    vmid: row.vmid,
    name: (qemu ? config['name'] : config['hostname']) ?? (qemu ? `VM ${row.vmid}` : `CT${row.vmid}`),
    status: run === 'stopped' ? 'stopped' : 'running',
    ...(qemu ? { qmpstatus: run } : { type: 'lxc' as const, maxswap: Number(config['swap'] ?? 512) * MiB, swap: 0 }),
    cpus: Number(config['cores'] ?? GUEST_DEFAULTS.cores) * (qemu ? Number(config['sockets'] ?? GUEST_DEFAULTS.sockets) : 1),
    cpu: live?.cpu ?? 0,
    maxmem: Number(config['memory'] ?? GUEST_DEFAULTS.memoryMiB) * MiB,
    mem: live?.mem ?? 0,
    maxdisk: bootDiskSize(row.type, config),
    disk: 0,
    uptime: live?.uptime ?? 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ...(live?.pid !== undefined ? { pid: live.pid } : {}),
    ...(config['template'] === '1' ? { template: 1 as const } : {}),
    ...(row.lock !== null ? { lock: row.lock } : {}),
    ...(tags !== undefined && tags !== '' ? { tags } : {}),
    ...(qemu && guestAgentEnabled(config) ? { agent: 1 as const } : {}),
  };
}

/** PVE's `maxdisk`: the size of the boot disk (VMs) or the root file system (containers). */
function bootDiskSize(type: 'qemu' | 'lxc', config: Readonly<Record<string, string>>): number {
  const key =
    type === 'lxc'
      ? 'rootfs'
      : (/(?:order=|;)((?:scsi|virtio|sata|ide)\d+)/.exec(config['boot'] ?? '')?.[1] ??
        Object.keys(config).find((candidate) => /^(?:scsi|virtio|sata|ide)\d+$/.test(candidate)));
  const value = key === undefined ? undefined : config[key];
  if (value === undefined) return 0;
  const size = (type === 'lxc' ? parseMount(value) : parseDisk(value)).options.get('size');
  return size === undefined ? 0 : (parseSize(size) ?? 0);
}
