import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { GuestsModule } from '../guests/guests.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { NodeStorageController } from './node-storage.controller.js';
import { NodeStorageService } from './node-storage.service.js';
import { StorageActivation } from './storage-activation.js';
import { StorageSpace } from './storage-space.js';
import { StorageController } from './storage.controller.js';
import { StoragesService } from './storages.service.js';
import { VolumeUploadService } from './volume-upload.service.js';
import { VolumesService } from './volumes.service.js';

/** Storages (issue 6): `/storage` and `/nodes/{node}/storage`, directory storages made real on each node by its agent. */
@Module({
  imports: [AgentsModule, NodesModule, TasksModule, GuestsModule],
  controllers: [StorageController, NodeStorageController],
  providers: [StoragesService, NodeStorageService, VolumesService, VolumeUploadService, StorageSpace, StorageActivation],
})
export class StorageModule {}
