import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { HA_GROUP_ENDPOINTS, type HaGroupEndpoints } from './ha-groups.endpoints.js';
import { HaGroupsService } from './ha-groups.service.js';

/** `/cluster/ha/groups`: where HA resources may run. */
@Controller()
export class HaGroupsController {
  constructor(private readonly groups: HaGroupsService) {}

  @Endpoint(HA_GROUP_ENDPOINTS.list)
  list(): Promise<ResultOf<HaGroupEndpoints['list']>> {
    return this.groups.list();
  }

  @Endpoint(HA_GROUP_ENDPOINTS.create)
  async create(@Params() params: ParamsOf<HaGroupEndpoints['create']>): Promise<null> {
    await this.groups.create(params);
    return null;
  }

  @Endpoint(HA_GROUP_ENDPOINTS.get)
  get(@Params() params: ParamsOf<HaGroupEndpoints['get']>): Promise<ResultOf<HaGroupEndpoints['get']>> {
    return this.groups.get(params.group);
  }

  @Endpoint(HA_GROUP_ENDPOINTS.update)
  async update(@Params() params: ParamsOf<HaGroupEndpoints['update']>): Promise<null> {
    await this.groups.update(params);
    return null;
  }

  @Endpoint(HA_GROUP_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<HaGroupEndpoints['remove']>): Promise<null> {
    await this.groups.remove(params.group);
    return null;
  }
}
