import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { GuestsModule } from '../guests/guests.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { VzdumpController } from './vzdump.controller.js';
import { VzdumpService } from './vzdump.service.js';

/** Backups: vzdump runs, their retention, and the backup jobs that run them on schedule. */
@Module({
  imports: [InventoryModule, AgentsModule, GuestsModule, NodesModule, StorageModule],
  controllers: [VzdumpController],
  providers: [VzdumpService],
  exports: [VzdumpService],
})
export class BackupsModule {}
