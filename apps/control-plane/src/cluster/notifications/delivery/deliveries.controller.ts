import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../../http/endpoint.js';
import { Params } from '../../../http/request-params.js';
import { DELIVERY_ENDPOINTS, type DeliveryEndpoints } from './deliveries.endpoints.js';
import { DeliveriesService } from './deliveries.service.js';

/** `/cluster/notifications/endpoints/webhook/{name}/deliveries`. */
@Controller()
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Endpoint(DELIVERY_ENDPOINTS.list)
  list(@Params() params: ParamsOf<DeliveryEndpoints['list']>): Promise<ResultOf<DeliveryEndpoints['list']>> {
    return this.deliveries.list(params);
  }
}
