import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { Caller, type Principal } from '../../http/principal.js';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './groups.endpoints.js';
import { GroupsService } from './groups.service.js';

@Controller()
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Endpoint(listGroups)
  list(@Caller() caller: Principal): Promise<ResultOf<typeof listGroups>> {
    return this.groups.list(caller);
  }

  @Endpoint(createGroup)
  async create(@Params() params: ParamsOf<typeof createGroup>): Promise<null> {
    await this.groups.create(params);
    return null;
  }

  @Endpoint(getGroup)
  get(@Params() params: ParamsOf<typeof getGroup>): Promise<ResultOf<typeof getGroup>> {
    return this.groups.get(params.groupid);
  }

  @Endpoint(updateGroup)
  async update(@Params() params: ParamsOf<typeof updateGroup>): Promise<null> {
    await this.groups.update(params);
    return null;
  }

  @Endpoint(deleteGroup)
  async remove(@Params() params: ParamsOf<typeof deleteGroup>): Promise<null> {
    await this.groups.remove(params.groupid);
    return null;
  }
}
