import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { createRole, deleteRole, getRole, listRoles, updateRole } from './roles.endpoints.js';
import { RolesService } from './roles.service.js';

@Controller()
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Endpoint(listRoles)
  list(): Promise<ResultOf<typeof listRoles>> {
    return this.roles.list();
  }

  @Endpoint(createRole)
  async create(@Params() params: ParamsOf<typeof createRole>): Promise<null> {
    await this.roles.create(params.roleid, params.privs ?? []);
    return null;
  }

  @Endpoint(getRole)
  get(@Params() params: ParamsOf<typeof getRole>): Promise<ResultOf<typeof getRole>> {
    return this.roles.privileges(params.roleid);
  }

  @Endpoint(updateRole)
  async update(@Params() params: ParamsOf<typeof updateRole>): Promise<null> {
    await this.roles.update(params.roleid, params.privs, params.append ?? false);
    return null;
  }

  @Endpoint(deleteRole)
  async remove(@Params() params: ParamsOf<typeof deleteRole>): Promise<null> {
    await this.roles.remove(params.roleid);
    return null;
  }
}
