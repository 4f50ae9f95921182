import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { Caller, type Principal } from '../../http/principal.js';
import { addAcl, listAcl, removeAcl, updateAcl } from './acl.endpoints.js';
import { AclService } from './acl.service.js';

@Controller()
export class AclController {
  constructor(private readonly acl: AclService) {}

  @Endpoint(listAcl)
  list(@Caller() caller: Principal): Promise<ResultOf<typeof listAcl>> {
    return this.acl.list(caller);
  }

  @Endpoint(updateAcl)
  async update(@Caller() caller: Principal, @Params() params: ParamsOf<typeof updateAcl>): Promise<null> {
    await this.acl.change(caller, { ...params, remove: params.delete });
    return null;
  }

  @Endpoint(addAcl)
  async add(@Caller() caller: Principal, @Params() params: ParamsOf<typeof addAcl>): Promise<null> {
    await this.acl.change(caller, { ...params, remove: false });
    return null;
  }

  @Endpoint(removeAcl)
  async remove(@Caller() caller: Principal, @Params() params: ParamsOf<typeof removeAcl>): Promise<null> {
    await this.acl.change(caller, { ...params, remove: true });
    return null;
  }
}
