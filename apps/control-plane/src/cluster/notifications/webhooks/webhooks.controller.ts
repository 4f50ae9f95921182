import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../../http/endpoint.js';
import { Params } from '../../../http/request-params.js';
import { WEBHOOK_ENDPOINTS, type WebhookEndpoints } from './webhooks.endpoints.js';
import { WebhooksService } from './webhooks.service.js';

/** `/cluster/notifications/endpoints/webhook` and `/cluster/notifications/targets`. */
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Endpoint(WEBHOOK_ENDPOINTS.list)
  list(): Promise<ResultOf<WebhookEndpoints['list']>> {
    return this.webhooks.list();
  }

  @Endpoint(WEBHOOK_ENDPOINTS.create)
  async create(@Params() params: ParamsOf<WebhookEndpoints['create']>): Promise<null> {
    await this.webhooks.create(params);
    return null;
  }

  @Endpoint(WEBHOOK_ENDPOINTS.get)
  get(@Params() params: ParamsOf<WebhookEndpoints['get']>): Promise<ResultOf<WebhookEndpoints['get']>> {
    return this.webhooks.get(params.name);
  }

  @Endpoint(WEBHOOK_ENDPOINTS.update)
  async update(@Params() params: ParamsOf<WebhookEndpoints['update']>): Promise<null> {
    await this.webhooks.update(params);
    return null;
  }

  @Endpoint(WEBHOOK_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<WebhookEndpoints['remove']>): Promise<null> {
    await this.webhooks.remove(params.name);
    return null;
  }

  @Endpoint(WEBHOOK_ENDPOINTS.targets)
  targets(): Promise<ResultOf<WebhookEndpoints['targets']>> {
    return this.webhooks.targets();
  }
}
