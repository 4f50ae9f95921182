import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { GuestAgentController } from './agent/guest-agent.controller.js';
import { GuestAgentService } from './agent/guest-agent.service.js';
import { PendingController } from './agent/pending.controller.js';
import { ContainerInterfaces, ContainerInterfacesController } from './lxc/container-interfaces.js';
import { GuestConfigService } from './guest-config.service.js';
import { GuestStates } from './guest-states.js';
import { GuestStatusService } from './guest-status.service.js';
import { GuestTasks } from './guest-tasks.js';
import { NewGuests } from './new-guests.js';
import { StaleLocks } from './stale-locks.js';
import { CloneService } from './lifecycle/clone.service.js';
import { CreateService } from './lifecycle/create.service.js';
import { DestroyService } from './lifecycle/destroy.service.js';
import { TemplateService } from './lifecycle/template.service.js';
import { PowerService } from './power/power.service.js';
import { LxcController } from './lxc/lxc.controller.js';
import { MigrateController } from './migrate/migrate.controller.js';
import { ContainerMigrations } from './migrate/container-migrate.service.js';
import { MigrateService } from './migrate/migrate.service.js';
import { MonitorController } from './qemu/monitor.controller.js';
import { MonitorService } from './qemu/monitor.service.js';
import { QemuController } from './qemu/qemu.controller.js';
import { BackupArchives } from './restore/backup-archives.js';
import { RestoreService } from './restore/restore.service.js';
import { GuestVolumesService } from './volumes/guest-volumes.service.js';
import { VolumeController } from './volumes/volume.controller.js';
import { VolumeChanges } from './volumes/volume-changes.js';
import { LxcSnapshotsController, QemuSnapshotsController } from './snapshots/snapshots.controller.js';
import { SnapshotsRepository } from './snapshots/snapshots.repository.js';
import { SnapshotsService } from './snapshots/snapshots.service.js';
import { CloudinitController } from './cloudinit/cloudinit.controller.js';
import { CloudinitService } from './cloudinit/cloudinit.service.js';

/** VMs and containers: `/nodes/{node}/qemu` and `/nodes/{node}/lxc`. */
@Module({
  imports: [InventoryModule, AgentsModule, NodesModule, TasksModule],
  controllers: [
    QemuController,
    MonitorController,
    LxcController,
    MigrateController,
    VolumeController,
    QemuSnapshotsController,
    LxcSnapshotsController,
    CloudinitController,
    GuestAgentController,
    PendingController,
    ContainerInterfacesController,
  ],
  providers: [
    GuestStates,
    GuestStatusService,
    PowerService,
    GuestConfigService,
    CreateService,
    CloneService,
    TemplateService,
    DestroyService,
    MonitorService,
    GuestTasks,
    MigrateService,
    ContainerMigrations,
    NewGuests,
    StaleLocks,
    RestoreService,
    BackupArchives,
    VolumeChanges,
    GuestVolumesService,
    SnapshotsService,
    SnapshotsRepository,
    CloudinitService,
    GuestAgentService,
    ContainerInterfaces,
  ],
  exports: [GuestStatusService, PowerService, GuestTasks, NewGuests, BackupArchives, MigrateService, ContainerMigrations],
})
export class GuestsModule {}
