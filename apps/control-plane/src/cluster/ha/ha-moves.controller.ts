import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { parseSid } from './ha-params.js';
import { HA_MOVE_ENDPOINTS, type HaMoveEndpoints } from './ha-moves.endpoints.js';
import { HaMoves } from './ha-moves.service.js';

/** `/cluster/ha/resources/{sid}/migrate|relocate`. */
@Controller()
export class HaMovesController {
  constructor(private readonly moves: HaMoves) {}

  @Endpoint(HA_MOVE_ENDPOINTS.migrate)
  async migrate(
    @Params() params: ParamsOf<HaMoveEndpoints['migrate']>,
    @Caller() caller: Principal,
  ): Promise<ResultOf<HaMoveEndpoints['migrate']>> {
    return this.moves.move(parseSid(params.sid), params.node, 'migrate', caller);
  }

  @Endpoint(HA_MOVE_ENDPOINTS.relocate)
  async relocate(
    @Params() params: ParamsOf<HaMoveEndpoints['relocate']>,
    @Caller() caller: Principal,
  ): Promise<ResultOf<HaMoveEndpoints['relocate']>> {
    return this.moves.move(parseSid(params.sid), params.node, 'relocate', caller);
  }
}
