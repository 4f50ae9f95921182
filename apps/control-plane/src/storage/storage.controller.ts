import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { STORAGE_ENDPOINTS } from './storage.endpoints.js';
import { StoragesService } from './storages.service.js';
import { VolumesService } from './volumes.service.js';

type Endpoints = typeof STORAGE_ENDPOINTS;

/** `/storage`: the definitions, and Corral's cluster-wide status and content. */
@Controller()
export class StorageController {
  constructor(
    private readonly storages: StoragesService,
    private readonly volumes: VolumesService,
  ) {}

  @Endpoint(STORAGE_ENDPOINTS.list)
  list(@Params() { type }: ParamsOf<Endpoints['list']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['list']>> {
    return this.storages.list(caller, type);
  }

  @Endpoint(STORAGE_ENDPOINTS.create)
  create(@Params() params: ParamsOf<Endpoints['create']>): Promise<ResultOf<Endpoints['create']>> {
    return this.storages.create(params);
  }

  @Endpoint(STORAGE_ENDPOINTS.get)
  get(@Params() { storage }: ParamsOf<Endpoints['get']>): Promise<ResultOf<Endpoints['get']>> {
    return this.storages.get(storage);
  }

  @Endpoint(STORAGE_ENDPOINTS.update)
  update(@Params() params: ParamsOf<Endpoints['update']>): Promise<ResultOf<Endpoints['update']>> {
    return this.storages.update(params);
  }

  @Endpoint(STORAGE_ENDPOINTS.remove)
  remove(@Params() { storage, force }: ParamsOf<Endpoints['remove']>): Promise<null> {
    return this.storages.remove(storage, force ?? false);
  }

  @Endpoint(STORAGE_ENDPOINTS.status)
  status(@Params() { storage, node }: ParamsOf<Endpoints['status']>): Promise<ResultOf<Endpoints['status']>> {
    return this.storages.status(storage, node);
  }

  @Endpoint(STORAGE_ENDPOINTS.content)
  content(@Params() { storage, node, ...filters }: ParamsOf<Endpoints['content']>): Promise<ResultOf<Endpoints['content']>> {
    return this.volumes.inCluster(storage, node, filters);
  }
}
