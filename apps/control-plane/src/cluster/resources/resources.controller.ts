import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import type { JsonText } from '../../http/json-text.js';
import { RESOURCES_ENDPOINTS } from './resources.endpoints.js';
import { ResourcesService } from './resources.service.js';

type Endpoints = typeof RESOURCES_ENDPOINTS;

@Controller()
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Endpoint(RESOURCES_ENDPOINTS.resources)
  list(@Params() p: ParamsOf<Endpoints['resources']>, @Caller() caller: Principal): Promise<JsonText<ResultOf<Endpoints['resources']>>> {
    return this.resources.resources(p.type, caller);
  }

  @Endpoint(RESOURCES_ENDPOINTS.nextid)
  nextid(@Params() p: ParamsOf<Endpoints['nextid']>): Promise<string> {
    return this.resources.nextid(p.vmid);
  }
}
