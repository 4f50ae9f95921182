import type { GuestStatus } from './guest.endpoints.js';
import type { GuestState } from '../inventory/guests/guest-view.js';
import type { GuestRow } from '../inventory/guests/guest.entity.js';
import { GUEST_DEFAULTS } from './guest-spec.js';
import { parseDisk, parseMount, parseSize } from '@corral/pve-formats';
import { guestAgentEnabled } from './agent/agent-config.js';

/** The run state of a guest: live where this replica holds its agent, else as last written. */
export function runState(state: GuestState): 'running' | 'stopped' | 'paused' {
  return state.runtime?.status ?? state.row.status;
}

const MiB = 1024 * 1024;

/** What a guest's entry takes from its row alone, by row: a row is replaced, never changed, so each is worked out once. */
const fixedParts = new WeakMap<GuestRow, ReturnType<typeof fixedPart>>();

/** The fields of a guest's entry that come from its row alone (its config, lock and type). */
function fixedPart(row: GuestRow) {
  const { config } = row;
  const qemu = row.type === 'qemu';
  const tags = config['tags'];
  return {
    name: (qemu ? config['name'] : config['hostname']) ?? (qemu ? `VM ${row.vmid}` : `CT${row.vmid}`),
    maxswap: Number(config['swap'] ?? 512) * MiB,
    cpus: Number(config['cores'] ?? GUEST_DEFAULTS.cores) * (qemu ? Number(config['sockets'] ?? GUEST_DEFAULTS.sockets) : 1),
    maxmem: Number(config['memory'] ?? GUEST_DEFAULTS.memoryMiB) * MiB,
    maxdisk: bootDiskSize(row.type, config),
    tail: {
      ...(config['template'] === '1' ? { template: 1 as const } : {}),
      ...(row.lock !== null ? { lock: row.lock } : {}),
      ...(tags !== undefined && tags !== '' ? { tags } : {}),
      ...(qemu && guestAgentEnabled(config) ? { agent: 1 as const } : {}),
    },
  };
}

/**
 * A guest as PVE's lists and `status/current` show it: a paused VM is `running`
 * with `qmpstatus: paused`; sizes in bytes; `disk` 0 for VMs (PVE cannot see inside); the traffic
 * (`netin`, `diskwrite`, ...) in bytes since the guest started, where its driver counts it.
 */
export function statusEntry(state: GuestState): GuestStatus {
  const { row, runtime } = state;
  let fixed = fixedParts.get(row);
  if (fixed === undefined) fixedParts.set(row, (fixed = fixedPart(row)));
  const qemu = row.type === 'qemu';
  const run = runState(state);
  const live = run !== 'stopped' ? runtime : undefined;
  return {
    vmid: row.vmid,
    name: fixed.name,
    status: run === 'stopped' ? 'stopped' : 'running',
    ...(qemu ? { qmpstatus: run } : { type: 'lxc' as const, maxswap: fixed.maxswap, swap: 0 }),
    cpus: fixed.cpus,
    cpu: live?.cpu ?? 0,
    maxmem: fixed.maxmem,
    mem: live?.mem ?? 0,
    maxdisk: fixed.maxdisk,
    disk: 0,
    uptime: live?.uptime ?? 0,
    netin: live?.netin ?? 0,
    netout: live?.netout ?? 0,
    diskread: live?.diskread ?? 0,
    diskwrite: live?.diskwrite ?? 0,
    ...(live?.pid !== undefined ? { pid: live.pid } : {}),
    ...fixed.tail,
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
