import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { PRUNE_BACKUPS_ENDPOINTS } from './prune-backups.endpoints.js';
import { PruneBackupsService } from './prune-backups.service.js';

type Endpoints = typeof PRUNE_BACKUPS_ENDPOINTS;

/** Pruning backups: PVE's `/nodes/{node}/storage/{storage}/prunebackups` and Corral's own `/storage/{storage}/prune`. */
@Controller()
export class PruneBackupsController {
  constructor(private readonly prunes: PruneBackupsService) {}

  @Endpoint(PRUNE_BACKUPS_ENDPOINTS.dryRun)
  dryRun(@Params() { node, storage, ...request }: ParamsOf<Endpoints['dryRun']>): Promise<ResultOf<Endpoints['dryRun']>> {
    return this.prunes.dryRun(node, storage, request);
  }

  @Endpoint(PRUNE_BACKUPS_ENDPOINTS.prune)
  prune(
    @Params() { node, storage, ...request }: ParamsOf<Endpoints['prune']>,
    @Caller() caller: Principal,
  ): Promise<ResultOf<Endpoints['prune']>> {
    return this.prunes.prune(node, storage, request, caller);
  }

  @Endpoint(PRUNE_BACKUPS_ENDPOINTS.pruneInCluster)
  pruneInCluster(
    @Params() params: ParamsOf<Endpoints['pruneInCluster']>,
    @Caller() caller: Principal,
  ): Promise<ResultOf<Endpoints['pruneInCluster']>> {
    return this.prunes.inCluster(params, caller);
  }
}
