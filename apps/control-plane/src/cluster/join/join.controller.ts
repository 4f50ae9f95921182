import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { JOIN_ENDPOINT } from './join.endpoints.js';
import { JoinService } from './join.service.js';

@Controller()
export class JoinController {
  constructor(private readonly joins: JoinService) {}

  @Endpoint(JOIN_ENDPOINT)
  join(@Params() params: ParamsOf<typeof JOIN_ENDPOINT>): Promise<ResultOf<typeof JOIN_ENDPOINT>> {
    return this.joins.join(params.token, params.node);
  }
}
