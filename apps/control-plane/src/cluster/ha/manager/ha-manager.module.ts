import { Module } from '@nestjs/common';
import { AgentsModule } from '../../../agents/agents.module.js';
import { GuestsModule } from '../../../guests/guests.module.js';
import { TasksModule } from '../../../tasks/tasks.module.js';
import { HaGroupsReader } from './ha-groups-reader.js';
import { HaManager } from './ha-manager.service.js';
import { HaManagerRepository } from './ha-manager.repository.js';
import { LocalResourceManager } from './local-resource-manager.js';
import { Recovery } from './recovery.js';

/** The HA manager and the local resource managers (issue 8, docs/ha.md). */
@Module({
  imports: [AgentsModule, GuestsModule, TasksModule],
  providers: [HaManager, HaManagerRepository, HaGroupsReader, Recovery, LocalResourceManager],
})
export class HaManagerModule {}
