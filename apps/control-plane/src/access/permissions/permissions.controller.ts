import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { Caller, type Principal } from '../../http/principal.js';
import { getPermissions } from './permissions.endpoints.js';
import { PermissionsService } from './permissions.service.js';

@Controller()
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Endpoint(getPermissions)
  get(@Caller() caller: Principal, @Params() params: ParamsOf<typeof getPermissions>): Promise<ResultOf<typeof getPermissions>> {
    return this.permissions.of(caller, params);
  }
}
