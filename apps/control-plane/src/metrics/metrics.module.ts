import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { EventMetrics } from './event-metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsRegistry } from './metrics-registry.js';
import { ReplicaMetrics } from './replica-metrics.js';
import { TaskMetrics } from './task-metrics.js';
import { TasksModule } from '../tasks/tasks.module.js';

/** `GET /metrics`: the replica's metrics in the Prometheus text format. */
@Module({
  imports: [InventoryModule, AgentsModule, TasksModule],
  controllers: [MetricsController],
  providers: [MetricsRegistry, HttpMetrics, ClusterMetrics, ReplicaMetrics, TaskMetrics, EventMetrics],
})
export class MetricsModule {}
