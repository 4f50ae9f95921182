import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { AgentHub } from '../agents/agent-hub.js';
import type { GuestStatus } from '../guests/guest.endpoints.js';
import { statusEntry } from '../guests/status-entry.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import type { NodeInventory } from '../inventory/nodes/node.entity.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { MetricsRegistry } from './metrics-registry.js';

type GuestLabel = 'node' | 'vmid' | 'type' | 'name';

/** What a pg pool tells of its connections. */
interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/**
 * The cluster as `/cluster/resources` shows it, read from the in-memory views at each scrape: each
 * node's load and capacity while it is online (label `node`), each guest's (labels `node`, `vmid`,
 * `type`, `name`); and this replica's agents and database connections.
 */
@Injectable()
export class ClusterMetrics {
  constructor(nodes: NodeView, guests: GuestView, hub: AgentHub, dataSource: DataSource, registry: MetricsRegistry) {
    const perNode = (name: string, help: string, value: (inventory: NodeInventory) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['node'],
        registers: [registry],
        collect() {
          this.reset();
          for (const node of nodes.list()) if (node.online && node.inventory) this.set({ node: node.name }, value(node.inventory));
        },
      });
    const perGuest = (name: string, help: string, value: (status: GuestStatus) => number) =>
      new Gauge<GuestLabel>({
        name,
        help,
        labelNames: ['node', 'vmid', 'type', 'name'],
        registers: [registry],
        collect() {
          this.reset();
          for (const state of guests.list()) {
            const status = statusEntry(state);
            const { node, vmid, type } = state.row;
            this.set({ node, vmid: String(vmid), type, name: status.name ?? '' }, value(status));
          }
        },
      });

    new Gauge({
      name: 'corral_node_up',
      help: 'Whether the node is online (its agent heartbeats to a replica).',
      labelNames: ['node'],
      registers: [registry],
      collect() {
        this.reset();
        for (const node of nodes.list()) this.set({ node: node.name }, node.online ? 1 : 0);
      },
    });
    perNode('corral_node_cpu_ratio', "The node's CPU load, as a share of all its CPUs.", (inventory) => inventory.cpu);
    perNode('corral_node_cpus', "The node's logical CPUs.", (inventory) => inventory.maxcpu);
    perNode('corral_node_memory_used_bytes', "The node's memory in use.", (inventory) => inventory.mem);
    perNode('corral_node_memory_total_bytes', "The node's memory.", (inventory) => inventory.maxmem);
    perNode('corral_node_rootfs_used_bytes', "The used bytes of the node's root file system.", (inventory) => inventory.disk);
    perNode('corral_node_rootfs_total_bytes', "The size of the node's root file system.", (inventory) => inventory.maxdisk);
    perNode('corral_node_uptime_seconds', 'Seconds since the node booted.', (inventory) => inventory.uptime);

    perGuest('corral_guest_up', 'Whether the guest runs (1), or is stopped or paused (0).', (status) =>
      status.status === 'running' ? 1 : 0,
    );
    perGuest('corral_guest_cpu_ratio', "The guest's CPU load, as a share of its CPUs.", (status) => status.cpu);
    perGuest('corral_guest_cpus', "The guest's CPUs.", (status) => status.cpus);
    perGuest('corral_guest_memory_used_bytes', "The guest's memory in use.", (status) => status.mem);
    perGuest('corral_guest_memory_total_bytes', "The guest's memory.", (status) => status.maxmem);
    perGuest('corral_guest_disk_total_bytes', "The size of the guest's boot disk.", (status) => status.maxdisk);
    perGuest('corral_guest_uptime_seconds', 'Seconds since the guest started; 0 while it is stopped.', (status) => status.uptime);

    new Gauge({
      name: 'corral_agents_connected',
      help: 'The node agents connected to this replica.',
      registers: [registry],
      collect() {
        this.set(nodes.list().filter((node) => hub.holds(node.name)).length);
      },
    });
    new Gauge({
      name: 'corral_database_connections',
      help: "This replica's connections to PostgreSQL: open, idle, and requests waiting for one.",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const pool = (dataSource.driver as unknown as { master: PoolCounts }).master;
        this.set({ state: 'open' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
}
