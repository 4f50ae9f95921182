import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { AppliancesService } from './appliances.service.js';
import { ApplianceIndex } from './appliance-index.js';
import { BackupPruner } from './backup-pruner.js';
import { DownloadsController } from './downloads.controller.js';
import { NodeStorageController } from './node-storage.controller.js';
import { NodeStorageService } from './node-storage.service.js';
import { PruneBackupsController } from './prune-backups.controller.js';
import { PruneBackupsService } from './prune-backups.service.js';
import { StorageActivation } from './storage-activation.js';
import { StorageSpace } from './storage-space.js';
import { StorageWatches } from './storage-watches.js';
import { StorageController } from './storage.controller.js';
import { StoragesService } from './storages.service.js';
import { VolumeDownloadService } from './volume-download.service.js';
import { VolumeUploadService } from './volume-upload.service.js';
import { VolumesService } from './volumes.service.js';

/**
 * Storages: `/storage` and `/nodes/{node}/storage`, directory storages made real on each
 * node by its agent, with uploads and downloads into them. Exports the pruner, which backups use to apply a storage's retention.
 */
@Module({
  imports: [InventoryModule, AgentsModule, NodesModule, TasksModule],
  controllers: [StorageController, NodeStorageController, PruneBackupsController, DownloadsController],
  providers: [
    StoragesService,
    NodeStorageService,
    VolumesService,
    VolumeUploadService,
    VolumeDownloadService,
    ApplianceIndex,
    AppliancesService,
    StorageSpace,
    StorageActivation,
    StorageWatches,
    BackupPruner,
    PruneBackupsService,
  ],
  exports: [BackupPruner, StoragesService],
})
export class StorageModule {}
