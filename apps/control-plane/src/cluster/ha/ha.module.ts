import { Module } from '@nestjs/common';
import { InventoryModule } from '../../inventory/inventory.module.js';
import { HaGroupsController } from './ha-groups.controller.js';
import { HaGroupsRepository } from './ha-groups.repository.js';
import { HaGroupsService } from './ha-groups.service.js';
import { HaResourcesController } from './ha-resources.controller.js';
import { HaResourcesService } from './ha-resources.service.js';
import { HaStatusController } from './ha-status.controller.js';
import { HaStatusRepository } from './ha-status.repository.js';
import { HaStatusService } from './ha-status.service.js';

/** `/cluster/ha`: HA resources and groups, and the HA status. */
@Module({
  imports: [InventoryModule],
  controllers: [HaStatusController, HaResourcesController, HaGroupsController],
  providers: [HaStatusRepository, HaStatusService, HaResourcesService, HaGroupsRepository, HaGroupsService],
  exports: [HaGroupsRepository],
})
export class HaModule {}
