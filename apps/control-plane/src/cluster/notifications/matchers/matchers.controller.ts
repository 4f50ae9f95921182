import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../../http/endpoint.js';
import { Params } from '../../../http/request-params.js';
import { MATCHER_ENDPOINTS, type MatcherEndpoints } from './matchers.endpoints.js';
import { MatchersService } from './matchers.service.js';

/** `/cluster/notifications/matchers`. */
@Controller()
export class MatchersController {
  constructor(private readonly matchers: MatchersService) {}

  @Endpoint(MATCHER_ENDPOINTS.list)
  list(): Promise<ResultOf<MatcherEndpoints['list']>> {
    return this.matchers.list();
  }

  @Endpoint(MATCHER_ENDPOINTS.create)
  async create(@Params() params: ParamsOf<MatcherEndpoints['create']>): Promise<null> {
    await this.matchers.create(params);
    return null;
  }

  @Endpoint(MATCHER_ENDPOINTS.get)
  get(@Params() params: ParamsOf<MatcherEndpoints['get']>): Promise<ResultOf<MatcherEndpoints['get']>> {
    return this.matchers.get(params.name);
  }

  @Endpoint(MATCHER_ENDPOINTS.update)
  async update(@Params() params: ParamsOf<MatcherEndpoints['update']>): Promise<null> {
    await this.matchers.update(params);
    return null;
  }

  @Endpoint(MATCHER_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<MatcherEndpoints['remove']>): Promise<null> {
    await this.matchers.remove(params.name);
    return null;
  }
}
