import type { DeliverySettings } from './delivery-settings.js';

/**
 * The wait before the next attempt after `failures` failed ones: `firstRetryMs` doubling up to
 * `maxRetryMs` (1 s, 2 s, 4 s, ... 10 min by default), each between half and all of that at
 * random, so that the deliveries of a receiver that comes back do not all retry at one instant.
 */
export function retryDelayMs(
  failures: number,
  settings: Pick<DeliverySettings, 'firstRetryMs' | 'maxRetryMs'>,
  random: () => number = Math.random,
): number {
  const full = Math.min(settings.maxRetryMs, settings.firstRetryMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(full / 2 + (random() * full) / 2);
}
