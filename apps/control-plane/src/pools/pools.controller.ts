import { Controller, type Type } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import {
  deletePool,
  deletePoolByParam,
  PVE_POOL_ENDPOINTS,
  removePoolGuest,
  SPEC_POOL_ENDPOINTS,
  updatePoolByParam,
  type PoolEndpoints,
} from './pools.endpoints.js';
import { PoolsService } from './pools.service.js';

/** One controller per path form: the same handlers, mounted on Corral's `/pool` or PVE's `/pools`. */
function poolsController(endpoints: PoolEndpoints): Type {
  @Controller()
  class PoolsController {
    constructor(private readonly pools: PoolsService) {}

    @Endpoint(endpoints.list)
    list(@Params() params: ParamsOf<PoolEndpoints['list']>, @Caller() caller: Principal): Promise<ResultOf<PoolEndpoints['list']>> {
      return this.pools.list(caller, params);
    }

    @Endpoint(endpoints.create)
    async create(@Params() params: ParamsOf<PoolEndpoints['create']>): Promise<null> {
      await this.pools.create(params.poolid, params.comment);
      return null;
    }

    @Endpoint(endpoints.get)
    get(@Params() params: ParamsOf<PoolEndpoints['get']>): Promise<ResultOf<PoolEndpoints['get']>> {
      return this.pools.get(params.poolid, params.type);
    }

    @Endpoint(endpoints.update)
    async update(@Params() { poolid, ...change }: ParamsOf<PoolEndpoints['update']>, @Caller() caller: Principal): Promise<null> {
      await this.pools.update(caller, poolid, change);
      return null;
    }
  }
  return PoolsController;
}

export const SpecPoolsController = poolsController(SPEC_POOL_ENDPOINTS);
export const PvePoolsController = poolsController(PVE_POOL_ENDPOINTS);

/** The endpoints only one path form has: Corral's removal of a guest, PVE's `poolid` parameter forms and deletion. */
@Controller()
export class PoolMembershipController {
  constructor(private readonly pools: PoolsService) {}

  @Endpoint(removePoolGuest)
  async removeGuest(@Params() { poolid, vmid }: ParamsOf<typeof removePoolGuest>, @Caller() caller: Principal): Promise<null> {
    await this.pools.update(caller, poolid, { vms: [vmid], delete: true }, 'vmid');
    return null;
  }

  @Endpoint(updatePoolByParam)
  async updateByParam(@Params() { poolid, ...change }: ParamsOf<typeof updatePoolByParam>, @Caller() caller: Principal): Promise<null> {
    await this.pools.update(caller, poolid, change);
    return null;
  }

  @Endpoint(deletePool)
  async remove(@Params() params: ParamsOf<typeof deletePool>): Promise<null> {
    await this.pools.remove(params.poolid);
    return null;
  }

  @Endpoint(deletePoolByParam)
  async removeByParam(@Params() params: ParamsOf<typeof deletePoolByParam>): Promise<null> {
    await this.pools.remove(params.poolid);
    return null;
  }
}
