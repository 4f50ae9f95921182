import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { ContainerMigrations } from './container-migrate.service.js';
import { MIGRATE_ENDPOINTS } from './migrate.endpoints.js';
import { MigrateService } from './migrate.service.js';

type Endpoints = typeof MIGRATE_ENDPOINTS;

/** `/nodes/{node}/qemu/{vmid}/migrate` and `/nodes/{node}/lxc/{vmid}/migrate`. */
@Controller()
export class MigrateController {
  constructor(
    private readonly migrations: MigrateService,
    private readonly containers: ContainerMigrations,
  ) {}

  @Endpoint(MIGRATE_ENDPOINTS.preconditions)
  preconditions(@Params() p: ParamsOf<Endpoints['preconditions']>): Promise<ResultOf<Endpoints['preconditions']>> {
    return this.migrations.preconditions(p.node, p.vmid, p.target);
  }

  @Endpoint(MIGRATE_ENDPOINTS.migrate)
  migrate(@Params() p: ParamsOf<Endpoints['migrate']>, @Caller() caller: Principal): Promise<string> {
    return this.migrations.migrate(p, caller);
  }

  @Endpoint(MIGRATE_ENDPOINTS.migrateContainer)
  migrateContainer(@Params() p: ParamsOf<Endpoints['migrateContainer']>, @Caller() caller: Principal): Promise<string> {
    return this.containers.migrate(p, caller);
  }
}
