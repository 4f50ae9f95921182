import type { Logger } from 'pino';
import { DeliveriesRepository } from './deliveries.repository.js';
import type { DeliverySettings } from './delivery-settings.js';
import { planDeliveries } from './delivery-plan.js';
import { WorkLoop } from './work-loop.js';

/** How often old delivered and failed deliveries are deleted. */
const FORGET_EVERY_MS = 3_600_000;

/**
 * Turns committed events into deliveries (docs/webhooks.md "Delivery"), from the persisted cursor
 * on, when woken (each event's NOTIFY) and every `pollMs` in case a wake was missed. Every
 * replica runs one; the cursor's row lock makes them take turns, so each event is dispatched once
 * (DeliveriesRepository.dispatch), and events committed while no control plane ran are
 * dispatched by the first to start.
 */
export class WebhookDispatcher {
  private readonly loop: WorkLoop;
  private forgotten = 0;

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly settings: DeliverySettings,
    logger: Logger,
  ) {
    this.loop = new WorkLoop(
      () => this.dispatchAll(),
      (error) => {
        logger.warn({ err: error }, 'webhooks: cannot dispatch events; trying again');
        return settings.pollMs;
      },
    );
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Dispatches every event after the cursor; resolves with the wait until the next look. */
  private async dispatchAll(): Promise<number> {
    while ((await this.repository.dispatch(this.settings.dispatchBatch, planDeliveries)) === this.settings.dispatchBatch);
    if (Date.now() - this.forgotten >= FORGET_EVERY_MS) {
      await this.repository.forget(this.settings.historyMs);
      this.forgotten = Date.now();
    }
    return this.settings.pollMs;
  }
}
