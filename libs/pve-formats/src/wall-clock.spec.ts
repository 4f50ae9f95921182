import { instantOf, wallClockAt } from './wall-clock.js';

const utc = (iso: string) => Date.parse(`${iso}Z`);

describe('wall clock', () => {
  it('reads an instant on a zone’s clock and back', () => {
    expect(wallClockAt(utc('2025-06-15T00:00:00'), 'Europe/Vienna')).toBe(utc('2025-06-15T02:00:00'));
    expect(wallClockAt(utc('2025-01-15T00:00:00'), 'America/New_York')).toBe(utc('2025-01-14T19:00:00'));
    expect(instantOf(utc('2025-06-15T02:00:00'), 'Europe/Vienna')).toBe(utc('2025-06-15T00:00:00'));
    expect(wallClockAt(utc('2025-06-15T00:00:59.900'), 'UTC')).toBe(utc('2025-06-15T00:00:59'));
  });

  it('has no instant for a time the clock skips and the first one for a time it repeats', () => {
    expect(instantOf(utc('2025-03-30T02:30:00'), 'Europe/Vienna')).toBeUndefined();
    expect(instantOf(utc('2025-10-26T02:30:00'), 'Europe/Vienna')).toBe(utc('2025-10-26T00:30:00'));
  });
});
