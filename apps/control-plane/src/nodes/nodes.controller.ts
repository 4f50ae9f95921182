import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import type { JsonText } from '../http/json-text.js';
import { Params } from '../http/request-params.js';
import { NODES_ENDPOINTS } from './nodes.endpoints.js';
import { NodesService } from './nodes.service.js';

type Endpoints = typeof NODES_ENDPOINTS;

@Controller()
export class NodesController {
  constructor(private readonly nodes: NodesService) {}

  @Endpoint(NODES_ENDPOINTS.list)
  list(@Caller() caller: Principal): Promise<JsonText<ResultOf<Endpoints['list']>>> {
    return this.nodes.list(caller);
  }

  @Endpoint(NODES_ENDPOINTS.index)
  index(@Params() params: ParamsOf<Endpoints['index']>): ResultOf<Endpoints['index']> {
    return this.nodes.index(params.node);
  }

  @Endpoint(NODES_ENDPOINTS.status)
  status(@Params() params: ParamsOf<Endpoints['status']>): Promise<ResultOf<Endpoints['status']>> {
    return this.nodes.status(params.node);
  }

  @Endpoint(NODES_ENDPOINTS.subscription)
  subscription(@Params() params: ParamsOf<Endpoints['subscription']>): ResultOf<Endpoints['subscription']> {
    return this.nodes.subscription(params.node);
  }
}
