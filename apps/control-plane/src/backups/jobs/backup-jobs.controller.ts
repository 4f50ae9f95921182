import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { BACKUP_JOB_ENDPOINTS, type BackupJobEndpoints } from './backup-jobs.endpoints.js';
import { BackupJobsService } from './backup-jobs.service.js';

/** `/cluster/backup`: scheduled backup jobs. */
@Controller()
export class BackupJobsController {
  constructor(private readonly jobs: BackupJobsService) {}

  @Endpoint(BACKUP_JOB_ENDPOINTS.list)
  list(): Promise<ResultOf<BackupJobEndpoints['list']>> {
    return this.jobs.list();
  }

  @Endpoint(BACKUP_JOB_ENDPOINTS.create)
  async create(@Params() params: ParamsOf<BackupJobEndpoints['create']>): Promise<null> {
    await this.jobs.create(params);
    return null;
  }

  @Endpoint(BACKUP_JOB_ENDPOINTS.get)
  get(@Params() params: ParamsOf<BackupJobEndpoints['get']>): Promise<ResultOf<BackupJobEndpoints['get']>> {
    return this.jobs.get(params.id);
  }

  @Endpoint(BACKUP_JOB_ENDPOINTS.update)
  async update(@Params() params: ParamsOf<BackupJobEndpoints['update']>): Promise<null> {
    await this.jobs.update(params);
    return null;
  }

  @Endpoint(BACKUP_JOB_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<BackupJobEndpoints['remove']>): Promise<null> {
    await this.jobs.remove(params.id);
    return null;
  }
}
