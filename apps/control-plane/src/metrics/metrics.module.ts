import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsRegistry } from './metrics-registry.js';

/** `GET /metrics`: the replica's metrics in the Prometheus text format. */
@Module({
  imports: [InventoryModule, AgentsModule],
  controllers: [MetricsController],
  providers: [MetricsRegistry, HttpMetrics, ClusterMetrics],
})
export class MetricsModule {}
