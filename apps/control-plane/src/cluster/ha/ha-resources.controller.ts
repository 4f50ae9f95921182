import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { HA_RESOURCE_ENDPOINTS, type HaResourceEndpoints } from './ha-resources.endpoints.js';
import { HaResourcesService } from './ha-resources.service.js';

/** `/cluster/ha/resources`: the guests under HA. */
@Controller()
export class HaResourcesController {
  constructor(private readonly resources: HaResourcesService) {}

  @Endpoint(HA_RESOURCE_ENDPOINTS.list)
  list(@Params() params: ParamsOf<HaResourceEndpoints['list']>): Promise<ResultOf<HaResourceEndpoints['list']>> {
    return this.resources.list(params.type);
  }

  @Endpoint(HA_RESOURCE_ENDPOINTS.create)
  async create(@Params() params: ParamsOf<HaResourceEndpoints['create']>): Promise<null> {
    await this.resources.create(params);
    return null;
  }

  @Endpoint(HA_RESOURCE_ENDPOINTS.get)
  get(@Params() params: ParamsOf<HaResourceEndpoints['get']>): Promise<ResultOf<HaResourceEndpoints['get']>> {
    return this.resources.get(params.sid);
  }

  @Endpoint(HA_RESOURCE_ENDPOINTS.update)
  async update(@Params() params: ParamsOf<HaResourceEndpoints['update']>): Promise<null> {
    await this.resources.update(params);
    return null;
  }

  @Endpoint(HA_RESOURCE_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<HaResourceEndpoints['remove']>): Promise<null> {
    await this.resources.remove(params.sid);
    return null;
  }
}
