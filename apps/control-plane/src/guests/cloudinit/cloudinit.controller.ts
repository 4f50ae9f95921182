import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { CLOUDINIT_ENDPOINTS } from './cloudinit.endpoints.js';
import { CloudinitService } from './cloudinit.service.js';

type Endpoints = typeof CLOUDINIT_ENDPOINTS;

/** A VM's cloud-init drive: one line per endpoint into the service. */
@Controller()
export class CloudinitController {
  constructor(private readonly cloudinit: CloudinitService) {}

  @Endpoint(CLOUDINIT_ENDPOINTS.pending)
  pending(@Params() p: ParamsOf<Endpoints['pending']>): Promise<ResultOf<Endpoints['pending']>> {
    return this.cloudinit.pending(p.node, p.vmid);
  }

  @Endpoint(CLOUDINIT_ENDPOINTS.update)
  async update(@Params() p: ParamsOf<Endpoints['update']>, @Caller() caller: Principal): Promise<null> {
    await this.cloudinit.update(p.node, p.vmid, caller);
    return null;
  }

  @Endpoint(CLOUDINIT_ENDPOINTS.dump)
  dump(@Params() p: ParamsOf<Endpoints['dump']>): Promise<string> {
    return this.cloudinit.dump(p.node, p.vmid, p.type);
  }
}
