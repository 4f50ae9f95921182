import { Module } from '@nestjs/common';
import { DeliveriesController } from './delivery/deliveries.controller.js';
import { DeliveriesRepository } from './delivery/deliveries.repository.js';
import { DeliveriesService } from './delivery/deliveries.service.js';
import { MatchersController } from './matchers/matchers.controller.js';
import { MatchersRepository } from './matchers/matchers.repository.js';
import { MatchersService } from './matchers/matchers.service.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';
import { WebhooksRepository } from './webhooks/webhooks.repository.js';
import { WebhooksService } from './webhooks/webhooks.service.js';

/** `/cluster/notifications`: webhook targets, matchers, and the deliveries made. Sending them is WebhookDeliveryModule's. */
@Module({
  controllers: [WebhooksController, MatchersController, DeliveriesController],
  providers: [WebhooksRepository, WebhooksService, MatchersRepository, MatchersService, DeliveriesRepository, DeliveriesService],
  exports: [DeliveriesRepository],
})
export class NotificationsModule {}
