import { Controller } from '@nestjs/common';
import { Caller, callerName, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { JOIN_TOKEN_ENDPOINTS } from './join-tokens.endpoints.js';
import { JoinTokensService } from './join-tokens.service.js';

type Endpoints = typeof JOIN_TOKEN_ENDPOINTS;

@Controller()
export class JoinTokensController {
  constructor(private readonly tokens: JoinTokensService) {}

  @Endpoint(JOIN_TOKEN_ENDPOINTS.list)
  list(): Promise<ResultOf<Endpoints['list']>> {
    return this.tokens.list();
  }

  @Endpoint(JOIN_TOKEN_ENDPOINTS.create)
  create(@Params() params: ParamsOf<Endpoints['create']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['create']>> {
    return this.tokens.create(params, callerName(caller));
  }

  @Endpoint(JOIN_TOKEN_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<Endpoints['remove']>): Promise<null> {
    await this.tokens.remove(params.id);
    return null;
  }
}
