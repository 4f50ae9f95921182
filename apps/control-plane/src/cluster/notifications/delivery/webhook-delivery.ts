import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { DatabaseNotifications } from '../../../database/notifications.js';
import { EVENTS_CHANNEL } from '../../../events/record-event.js';
import { LOGGER } from '../../../logging/loggers.js';
import { DELIVERIES_CHANNEL, DeliveriesRepository } from './deliveries.repository.js';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery-settings.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * A replica's part of webhook delivery (docs/webhooks.md "Delivery"): its dispatcher, woken by
 * each committed event, and its workers, woken by the deliveries any replica makes. Replicas need
 * no election: the database lets each event be dispatched once and each queue be sent by one at
 * a time.
 */
@Injectable()
export class WebhookDelivery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly dispatcher: WebhookDispatcher;
  private readonly sender: WebhookSender;

  constructor(
    repository: DeliveriesRepository,
    private readonly notifications: DatabaseNotifications,
    @Inject(DELIVERY_SETTINGS) settings: DeliverySettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.dispatcher = new WebhookDispatcher(repository, settings, logger);
    this.sender = new WebhookSender(repository, settings, logger);
  }

  onApplicationBootstrap(): void {
    this.notifications.subscribe(EVENTS_CHANNEL, () => this.dispatcher.wake());
    this.notifications.subscribe(DELIVERIES_CHANNEL, () => this.sender.wake());
    this.dispatcher.wake();
    this.sender.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
    await this.sender.stop();
  }
}
