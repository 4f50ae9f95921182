import { deliverySettings } from './delivery-settings.js';
import { retryDelayMs } from './retry-schedule.js';

const SETTINGS = { firstRetryMs: 1000, maxRetryMs: 600_000 };

describe('the retry schedule', () => {
  it('doubles from 1 s up to 10 min, at most', () => {
    expect([1, 2, 3, 4, 10, 11, 50].map((failures) => retryDelayMs(failures, SETTINGS, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 512_000, 600_000, 600_000,
    ]);
  });

  it('waits between half and all of that, at random', () => {
    expect(retryDelayMs(3, SETTINGS, () => 0)).toBe(2000);
    expect(retryDelayMs(3, SETTINGS, () => 0.5)).toBe(3000);
    expect(retryDelayMs(11, SETTINGS, () => 0)).toBe(300_000);
  });

  it('waits at most CORRAL_WEBHOOK_MAX_BACKOFF_S', () => {
    const settings = deliverySettings({ webhookRetryHours: 24, webhookMaxBackoffS: 3 });
    expect([1, 2, 3, 20].map((failures) => retryDelayMs(failures, settings, () => 1))).toEqual([1000, 2000, 3000, 3000]);
  });
});
