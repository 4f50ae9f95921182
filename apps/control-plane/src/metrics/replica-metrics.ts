import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { AgentHub } from '../agents/agent-hub.js';
import { MetricsRegistry } from './metrics-registry.js';

/** What a pg pool tells of its connections. */
interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** This replica's own: the agents it holds, how long since each last heartbeated, and its database connections. */
@Injectable()
export class ReplicaMetrics {
  constructor(hub: AgentHub, dataSource: DataSource, registry: MetricsRegistry) {
    new Gauge({
      name: 'corral_agents_connected',
      help: 'The node agents connected to this replica.',
      registers: [registry],
      collect() {
        this.set(hub.heartbeatAges().size);
      },
    });
    new Gauge({
      name: 'corral_agent_heartbeat_age_seconds',
      help: 'Seconds since the last heartbeat of each agent connected to this replica (every 2 s; offline after 10 s).',
      labelNames: ['node'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [node, age] of hub.heartbeatAges()) this.set({ node }, age);
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
