import { Module } from '@nestjs/common';
import { AgentsModule } from '../../agents/agents.module.js';
import { InventoryModule } from '../../inventory/inventory.module.js';
import { MetricPush } from './metric-push.js';
import { MetricServersController } from './metric-servers.controller.js';
import { MetricServersRepository } from './metric-servers.repository.js';
import { MetricServersService } from './metric-servers.service.js';

/** `/cluster/metrics`: the external metric servers (InfluxDB, Graphite), their sending, and the export of the figures. */
@Module({
  imports: [InventoryModule, AgentsModule],
  controllers: [MetricServersController],
  providers: [MetricServersService, MetricServersRepository, MetricPush],
})
export class MetricServersModule {}
