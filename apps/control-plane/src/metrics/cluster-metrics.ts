import { Injectable } from '@nestjs/common';
import type { GuestStatus } from '../guests/guest.endpoints.js';
import { statusEntry } from '../guests/status-entry.js';
import type { GuestRow } from '../inventory/guests/guest.entity.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import type { NodeInventory } from '../inventory/nodes/node.entity.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { escape, header } from './text-format.js';

interface Family<T> {
  readonly name: string;
  readonly help: string;
  readonly value: (of: T) => number;
}

const NODE_FAMILIES: readonly Family<NodeInventory>[] = [
  { name: 'corral_node_cpu_ratio', help: "The node's CPU load, as a share of all its CPUs.", value: (inventory) => inventory.cpu },
  { name: 'corral_node_cpus', help: "The node's logical CPUs.", value: (inventory) => inventory.maxcpu },
  { name: 'corral_node_memory_used_bytes', help: "The node's memory in use.", value: (inventory) => inventory.mem },
  { name: 'corral_node_memory_total_bytes', help: "The node's memory.", value: (inventory) => inventory.maxmem },
  { name: 'corral_node_rootfs_used_bytes', help: "The used bytes of the node's root file system.", value: (inventory) => inventory.disk },
  { name: 'corral_node_rootfs_total_bytes', help: "The size of the node's root file system.", value: (inventory) => inventory.maxdisk },
  { name: 'corral_node_uptime_seconds', help: 'Seconds since the node booted.', value: (inventory) => inventory.uptime },
];

const GUEST_FAMILIES: readonly Family<GuestStatus>[] = [
  {
    name: 'corral_guest_up',
    help: 'Whether the guest runs (1), or is stopped or paused (0).',
    value: (status) => (status.status === 'running' ? 1 : 0),
  },
  { name: 'corral_guest_cpu_ratio', help: "The guest's CPU load, as a share of its CPUs.", value: (status) => status.cpu },
  { name: 'corral_guest_cpus', help: "The guest's CPUs.", value: (status) => status.cpus },
  { name: 'corral_guest_memory_used_bytes', help: "The guest's memory in use.", value: (status) => status.mem },
  { name: 'corral_guest_memory_total_bytes', help: "The guest's memory.", value: (status) => status.maxmem },
  { name: 'corral_guest_disk_total_bytes', help: "The size of the guest's boot disk.", value: (status) => status.maxdisk },
  {
    name: 'corral_guest_uptime_seconds',
    help: 'Seconds since the guest started; 0 while it is stopped.',
    value: (status) => status.uptime,
  },
];

/** Each guest row's labels, made once per row (a row is replaced, never changed, when its guest changes). */
const guestLabels = new WeakMap<GuestRow, string>();

/**
 * The cluster as `/cluster/resources` shows it, read from the in-memory views at each scrape: each
 * node's load and capacity while it is online (label `node`), each guest's (labels `node`, `vmid`,
 * `type`, `name`), written as text directly: prom-client's labelled gauges took 90 ms for a
 * thousand nodes and guests.
 */
@Injectable()
export class ClusterMetrics {
  constructor(
    private readonly nodes: NodeView,
    private readonly guests: GuestView,
  ) {}

  /** The nodes' and guests' families in the Prometheus text format. */
  text(): string {
    const nodes = this.nodes.list();
    let text = header('corral_node_up', 'Whether the node is online (its agent heartbeats to a replica).');
    for (const node of nodes) text += `corral_node_up{node="${escape(node.name)}"} ${node.online ? 1 : 0}\n`;
    const online = nodes.flatMap((node) =>
      node.online && node.inventory ? [[`{node="${escape(node.name)}"}`, node.inventory] as const] : [],
    );
    for (const family of NODE_FAMILIES) {
      text += header(family.name, family.help);
      for (const [labels, inventory] of online) text += `${family.name}${labels} ${family.value(inventory)}\n`;
    }
    const guests = this.guests.list().map((state) => {
      const status = statusEntry(state);
      return [labelsOf(state.row, status), status] as const;
    });
    for (const family of GUEST_FAMILIES) {
      text += header(family.name, family.help);
      for (const [labels, status] of guests) text += `${family.name}${labels} ${family.value(status)}\n`;
    }
    return text;
  }
}

function labelsOf(row: GuestRow, status: GuestStatus): string {
  let labels = guestLabels.get(row);
  if (labels === undefined) {
    labels = `{node="${escape(row.node)}",vmid="${row.vmid}",type="${row.type}",name="${escape(status.name ?? '')}"}`;
    guestLabels.set(row, labels);
  }
  return labels;
}
