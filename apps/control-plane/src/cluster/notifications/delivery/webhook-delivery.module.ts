import { Module } from '@nestjs/common';
import { CONFIG, type Config } from '../../../config/config.js';
import { NotificationsModule } from '../notifications.module.js';
import { DELIVERY_SETTINGS, deliverySettings } from './delivery-settings.js';
import { WebhookDelivery } from './webhook-delivery.js';

/**
 * Webhook delivery (docs/webhooks.md "Delivery"): the dispatcher and the workers every replica
 * runs. Apart from the API so that tests can run their own, paced as they need.
 */
@Module({
  imports: [NotificationsModule],
  providers: [{ provide: DELIVERY_SETTINGS, inject: [CONFIG], useFactory: (config: Config) => deliverySettings(config) }, WebhookDelivery],
})
export class WebhookDeliveryModule {}
