import { Backoff } from './backoff.js';

describe('reconnection backoff', () => {
  it('doubles the ceiling per attempt up to the maximum, the delay drawn between the minimum and the ceiling', () => {
    const lowest = new Backoff(500, 30_000, () => 0);
    const highest = new Backoff(500, 30_000, () => 1);
    const floors = Array.from({ length: 8 }, () => lowest.next());
    const ceilings = Array.from({ length: 8 }, () => highest.next());
    expect(floors).toEqual(Array(8).fill(500));
    expect(ceilings).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('spreads the delay over the whole range (full jitter)', () => {
    const half = new Backoff(500, 30_000, () => 0.5);
    expect([half.next(), half.next(), half.next()]).toEqual([750, 1250, 2250]);
  });

  it('starts over after a reset', () => {
    const backoff = new Backoff(500, 30_000, () => 1);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(1000);
  });
});
