import { Module } from '@nestjs/common';
import { AgentsModule } from '../../agents/agents.module.js';
import { InventoryModule } from '../../inventory/inventory.module.js';
import { BackupsModule } from '../backups.module.js';
import { BackupJobScheduler } from './backup-job-scheduler.js';
import { BackupJobsController } from './backup-jobs.controller.js';
import { BackupJobsRepository } from './backup-jobs.repository.js';
import { BackupJobsService } from './backup-jobs.service.js';
import { SCHEDULER_CLOCK, SYSTEM_CLOCK } from './scheduler-clock.js';

/** Scheduled backup jobs: their definitions, and the scheduler every replica runs. */
@Module({
  imports: [InventoryModule, AgentsModule, BackupsModule],
  controllers: [BackupJobsController],
  providers: [BackupJobsRepository, BackupJobsService, BackupJobScheduler, { provide: SCHEDULER_CLOCK, useValue: SYSTEM_CLOCK }],
})
export class BackupJobsModule {}
