import type { Config } from '../../../config/config.js';

/** How webhook deliveries are paced (docs/webhooks.md "Delivery"); tests make them quick. */
export interface DeliverySettings {
  /** A delivery is retried until this long after its event was dispatched, then marked failed (CORRAL_WEBHOOK_RETRY_HOURS). */
  readonly retryWindowMs: number;
  /** The wait after the first failed attempt; each further failure doubles it, up to `maxRetryMs` (CORRAL_WEBHOOK_MAX_BACKOFF_S). */
  readonly firstRetryMs: number;
  readonly maxRetryMs: number;
  /** How often the dispatcher and the workers look for work when nothing woke them. */
  readonly pollMs: number;
  /** Requests one replica has in flight to one webhook, and to all. */
  readonly perWebhook: number;
  readonly inFlight: number;
  /** Beyond its timeout, how long a claimed delivery stays claimed before another worker may send it. */
  readonly leaseGraceMs: number;
  /** Events per dispatch transaction. */
  readonly dispatchBatch: number;
  /** Delivered and failed rows are kept this long for the deliveries API. */
  readonly historyMs: number;
}

export const DELIVERY_SETTINGS = Symbol('DELIVERY_SETTINGS');

const HOUR_MS = 3_600_000;

export function deliverySettings(config: Pick<Config, 'webhookRetryHours' | 'webhookMaxBackoffS'>): DeliverySettings {
  return {
    retryWindowMs: config.webhookRetryHours * HOUR_MS,
    firstRetryMs: 1000,
    maxRetryMs: config.webhookMaxBackoffS * 1000,
    pollMs: 5000,
    perWebhook: 8,
    inFlight: 64,
    leaseGraceMs: 15_000,
    dispatchBatch: 500,
    historyMs: 7 * 24 * HOUR_MS,
  };
}
