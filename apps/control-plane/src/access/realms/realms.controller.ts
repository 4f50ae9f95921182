import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { createDomain, deleteDomain, getDomain, listDomains, updateDomain } from './realms.endpoints.js';
import { RealmsService } from './realms.service.js';

@Controller()
export class RealmsController {
  constructor(private readonly realms: RealmsService) {}

  @Endpoint(listDomains)
  list(): Promise<ResultOf<typeof listDomains>> {
    return this.realms.list();
  }

  @Endpoint(getDomain)
  get(@Params() params: ParamsOf<typeof getDomain>): Promise<ResultOf<typeof getDomain>> {
    return this.realms.get(params.realm);
  }

  @Endpoint(createDomain)
  async create(@Params() params: ParamsOf<typeof createDomain>): Promise<null> {
    await this.realms.create(params);
    return null;
  }

  @Endpoint(updateDomain)
  async update(@Params() params: ParamsOf<typeof updateDomain>): Promise<null> {
    await this.realms.update(params);
    return null;
  }

  @Endpoint(deleteDomain)
  async remove(@Params() params: ParamsOf<typeof deleteDomain>): Promise<null> {
    await this.realms.remove(params.realm);
    return null;
  }
}
