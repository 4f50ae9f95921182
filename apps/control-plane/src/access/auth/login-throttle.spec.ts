import { LoginThrottle } from './login-throttle.js';

describe('LoginThrottle', () => {
  const throttle = () => new LoginThrottle({ limit: 3, windowS: 60, maxTracked: 2 });

  it('refuses a user from an address after the limit of failures, until the oldest leaves the window', () => {
    const t = throttle();
    t.failed('a@pve', '10.0.0.1', 100);
    t.failed('a@pve', '10.0.0.1', 110);
    expect(t.retryAfter('a@pve', '10.0.0.1', 111)).toBe(0);
    t.failed('a@pve', '10.0.0.1', 120);
    expect(t.retryAfter('a@pve', '10.0.0.1', 121)).toBe(39);
    expect(t.retryAfter('a@pve', '10.0.0.1', 160)).toBe(0);
  });

  it("does not lock the user's other addresses, nor other users of the address", () => {
    const t = throttle();
    for (const s of [1, 2, 3]) t.failed('a@pve', '10.0.0.1', s);
    expect(t.retryAfter('a@pve', '10.0.0.1', 4)).toBeGreaterThan(0);
    expect(t.retryAfter('a@pve', '10.0.0.2', 4)).toBe(0);
    expect(t.retryAfter('b@pve', '10.0.0.1', 4)).toBe(0);
  });

  it('forgets the failures of a pair on success', () => {
    const t = throttle();
    for (const s of [1, 2, 3]) t.failed('a@pve', '10.0.0.1', s);
    t.succeeded('a@pve', '10.0.0.1');
    expect(t.retryAfter('a@pve', '10.0.0.1', 4)).toBe(0);
  });

  it('tracks a bounded number of pairs, forgetting the oldest', () => {
    const t = throttle();
    for (const s of [1, 2, 3]) t.failed('a@pve', 'x', s);
    t.failed('b@pve', 'x', 4);
    t.failed('c@pve', 'x', 5);
    expect(t.retryAfter('a@pve', 'x', 6)).toBe(0);
  });
});
