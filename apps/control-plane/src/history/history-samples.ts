import type { GuestRuntime, StorageSpace } from '@corral/protocol';
import type { GuestStatus } from '../guests/guest.endpoints.js';
import type { NodeInventory } from '../inventory/nodes/node.entity.js';

/**
 * One reading of a series: gauges as they are, counters (bytes since the host booted or the guest
 * started) to be turned into rates. `clock` is the series' own uptime in seconds: a rate is a
 * counter's change over the clock's, so the reports' delays do not bend it, and a clock or a counter
 * that went back (a restart) starts counting anew.
 */
export interface Sample {
  readonly clock: number;
  readonly gauges: Readonly<Record<string, number>>;
  readonly counters: Readonly<Record<string, number>>;
}

/** PVE's names of a series: `pve2-node/<node>`, `pve2-vm/<vmid>` (VMs and containers alike), `pve2-storage/<node>/<storage>`. */
export const seriesOf = {
  node: (node: string) => `node/${node}`,
  guest: (vmid: number) => `vm/${vmid}`,
  storage: (node: string, storage: string) => `storage/${node}/${storage}`,
};

type Traffic = Pick<NodeInventory, 'netin' | 'netout' | 'diskread' | 'diskwrite'>;

function counters(traffic: Traffic): Record<string, number> {
  const found: Record<string, number> = {};
  for (const field of ['netin', 'netout', 'diskread', 'diskwrite'] as const) {
    const value = traffic[field];
    if (value !== undefined) found[field] = value;
  }
  return found;
}

/** A node's reading, with PVE's field names (`memused`, `roottotal`, `pressureiofull`, ...). */
export function nodeSample(inventory: NodeInventory): Sample {
  const { pressure } = inventory;
  const gauges: Record<string, number> = {
    cpu: inventory.cpu,
    maxcpu: inventory.maxcpu,
    memused: inventory.mem,
    memtotal: inventory.maxmem,
    memavailable: inventory.maxmem - inventory.mem,
    rootused: inventory.disk,
    roottotal: inventory.maxdisk,
  };
  if (inventory.loadavg !== undefined) gauges['loadavg'] = inventory.loadavg;
  if (inventory.iowait !== undefined) gauges['iowait'] = inventory.iowait;
  if (inventory.swap !== undefined) gauges['swapused'] = inventory.swap;
  if (inventory.maxswap !== undefined) gauges['swaptotal'] = inventory.maxswap;
  if (pressure !== undefined) for (const [field, value] of Object.entries(pressure)) gauges[`pressure${field}`] = value;
  return { clock: inventory.uptime, gauges, counters: counters(inventory) };
}

/** A guest's reading: its figures as its status shows them, its traffic while it runs. */
export function guestSample(status: GuestStatus, runtime: GuestRuntime | undefined): Sample {
  const running = status.status === 'running' && runtime !== undefined;
  return {
    clock: running ? runtime.uptime : 0,
    gauges: { cpu: status.cpu, maxcpu: status.cpus, mem: status.mem, maxmem: status.maxmem, disk: status.disk, maxdisk: status.maxdisk },
    counters: running ? counters(runtime) : {},
  };
}

/** A storage's reading, while it is active. */
export function storageSample(space: StorageSpace): Sample | undefined {
  return space.active ? { clock: 0, gauges: { total: space.total, used: space.used }, counters: {} } : undefined;
}
