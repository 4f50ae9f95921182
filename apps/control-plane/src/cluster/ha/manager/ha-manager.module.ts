import { Module } from '@nestjs/common';
import { AgentsModule } from '../../../agents/agents.module.js';
import { GuestsModule } from '../../../guests/guests.module.js';
import { InventoryModule } from '../../../inventory/inventory.module.js';
import { ReplicasModule } from '../../../replicas/replicas.module.js';
import { TasksModule } from '../../../tasks/tasks.module.js';
import { HaModule } from '../ha.module.js';
import { HaMoveRelay } from '../ha-move-relay.js';
import { HaMovesController } from '../ha-moves.controller.js';
import { HaMoves } from '../ha-moves.service.js';
import { Failback } from './failback.js';
import { HaPlacement } from './ha-placement.js';
import { HaManager } from './ha-manager.service.js';
import { HaManagerRepository } from './ha-manager.repository.js';
import { LocalResourceManager } from './local-resource-manager.js';
import { Recovery } from './recovery.js';

/** The HA manager and the local resource managers, and the moves of HA VMs they and the API ask for. */
@Module({
  imports: [InventoryModule, AgentsModule, GuestsModule, TasksModule, HaModule, ReplicasModule],
  controllers: [HaMovesController],
  providers: [HaManager, HaManagerRepository, Recovery, LocalResourceManager, HaMoves, HaMoveRelay, Failback, HaPlacement],
})
export class HaManagerModule {}
