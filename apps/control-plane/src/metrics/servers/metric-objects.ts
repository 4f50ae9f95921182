import type { GuestState } from '../../inventory/guests/guest-view.js';
import type { NodeState } from '../../inventory/nodes/node-view.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { statusEntry } from '../../guests/status-entry.js';

/** Figures as PVE's status daemon hands them to its metric plugins: numbers and text, grouped in nested objects. */
export interface MetricData {
  readonly [key: string]: number | string | MetricData | undefined;
}

/** One node, guest or storage's figures at one reading, with what names it. */
export type MetricObject =
  | {
      readonly kind: 'node';
      readonly node: string;
      readonly data: MetricData;
      /** Bytes through the physical cards since boot (PVE sends them per card in `nics`, which the agents do not report). */
      readonly traffic: { readonly netin?: number; readonly netout?: number };
    }
  | { readonly kind: 'qemu' | 'lxc'; readonly node: string; readonly vmid: number; readonly name: string; readonly data: MetricData }
  | { readonly kind: 'storage'; readonly node: string; readonly storage: string; readonly type: string; readonly data: MetricData };

export interface MetricSources {
  readonly guestsOn: (node: string) => readonly GuestState[];
  readonly storages: readonly StorageRow[];
}

/**
 * The figures of the online nodes given, of their guests and of their active storages, in the
 * shapes PVE sends: a node's `uptime` with `cpustat`, `memory` and `blockstat` groups (what the
 * agents report of them: per-card network counters are not reported, so PVE's `nics` group is not
 * sent), a guest's status entry, a storage's space with its type and content.
 */
export function readObjects(nodes: readonly NodeState[], sources: MetricSources): MetricObject[] {
  const definitions = new Map(sources.storages.map((storage) => [storage.storage, storage]));
  const objects: MetricObject[] = [];
  for (const node of nodes) {
    const { inventory } = node;
    if (!node.online || inventory === null) continue;
    objects.push({
      kind: 'node',
      node: node.name,
      data: {
        uptime: inventory.uptime,
        cpustat: { cpu: inventory.cpu, cpus: inventory.maxcpu, wait: inventory.iowait, avg1: inventory.loadavg },
        memory: {
          memtotal: inventory.maxmem,
          memused: inventory.mem,
          memfree: inventory.maxmem - inventory.mem,
          swaptotal: inventory.maxswap,
          swapused: inventory.swap,
          swapfree: inventory.maxswap !== undefined && inventory.swap !== undefined ? inventory.maxswap - inventory.swap : undefined,
        },
        blockstat: { blocks: inventory.maxdisk, used: inventory.disk, bfree: inventory.maxdisk - inventory.disk },
      },
      traffic: { netin: inventory.netin, netout: inventory.netout },
    });
    for (const state of sources.guestsOn(node.name)) {
      const status = statusEntry(state);
      objects.push({ kind: state.row.type, node: node.name, vmid: state.row.vmid, name: status.name, data: status });
    }
    for (const space of inventory.storages ?? []) {
      const definition = definitions.get(space.storage);
      if (!space.active || definition === undefined) continue;
      objects.push({
        kind: 'storage',
        node: node.name,
        storage: space.storage,
        type: definition.type,
        data: {
          type: definition.type,
          content: definition.content.join(','),
          shared: definition.shared ? 1 : 0,
          enabled: 1,
          active: 1,
          total: space.total,
          used: space.used,
          avail: space.avail,
        },
      });
    }
  }
  return objects;
}
