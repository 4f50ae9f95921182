import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { HistoryController } from './history.controller.js';
import { HistoryRecorder } from './history-recorder.js';
import { HistoryRepository } from './history.repository.js';
import { HistoryService } from './history.service.js';

/** The history of nodes, guests and storages (PVE's `rrddata`): recorded from the agents' reports, kept in PostgreSQL. */
@Module({
  imports: [InventoryModule, AgentsModule, NodesModule, StorageModule],
  controllers: [HistoryController],
  providers: [HistoryRepository, HistoryRecorder, HistoryService],
})
export class HistoryModule {}
