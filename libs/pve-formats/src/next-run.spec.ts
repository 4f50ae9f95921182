import { parseCalendarEvent } from './calendar-event.js';
import { nextRun } from './next-run.js';

const next = (schedule: string, after: string, timeZone?: string) =>
  nextRun(parseCalendarEvent(schedule), new Date(after), timeZone)?.toISOString() ?? null;

describe('nextRun', () => {
  it.each([
    // schedule, after, next (UTC)
    ['daily', '2025-06-15T10:00:00Z', '2025-06-16T00:00:00.000Z'],
    ['hourly', '2025-06-15T10:00:00Z', '2025-06-15T11:00:00.000Z'],
    ['minutely', '2025-06-15T10:00:30Z', '2025-06-15T10:01:00.000Z'],
    ['*/15', '2025-06-15T10:00:30Z', '2025-06-15T10:15:00.000Z'],
    ['*/15', '2025-06-15T23:50:00Z', '2025-06-16T00:00:00.000Z'],
    ['12:00', '2025-06-15T11:59:59Z', '2025-06-15T12:00:00.000Z'],
    ['2,22:30', '2025-06-15T03:00:00Z', '2025-06-15T22:30:00.000Z'],
    ['2,22:30', '2025-06-15T23:00:00Z', '2025-06-16T02:30:00.000Z'],
    ['0/2:00', '2025-06-15T13:00:00Z', '2025-06-15T14:00:00.000Z'],
    ['0/2:00', '2025-06-15T22:00:00Z', '2025-06-16T00:00:00.000Z'],
    // 2025-06-15 is a Sunday.
    ['sat 02:00', '2025-06-15T12:00:00Z', '2025-06-21T02:00:00.000Z'],
    ['weekly', '2025-06-15T12:00:00Z', '2025-06-16T00:00:00.000Z'],
    ['mon..fri 22:30', '2025-06-13T23:00:00Z', '2025-06-16T22:30:00.000Z'],
    ['mon,wed,fri 8:00', '2025-06-16T08:00:00Z', '2025-06-18T08:00:00.000Z'],
    ['fri..mon 12:00', '2025-06-17T00:00:00Z', '2025-06-20T12:00:00.000Z'],
    ['monthly', '2025-12-15T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['*-*-31', '2025-04-01T00:00:00Z', '2025-05-31T00:00:00.000Z'],
    ['yearly', '2025-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['quarterly', '2025-11-20T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['*-02-29 06:00', '2025-03-01T00:00:00Z', '2028-02-29T06:00:00.000Z'],
    ['Sat *-1..7 15:00', '2025-06-01T00:00:00Z', '2025-06-07T15:00:00.000Z'],
    ['Sat *-1..7 15:00', '2025-06-07T15:00:00Z', '2025-07-05T15:00:00.000Z'],
    ['2027-03-04 05:06', '2025-06-15T00:00:00Z', '2027-03-04T05:06:00.000Z'],
    ['*/2-01-01', '2025-06-15T00:00:00Z', '2026-01-01T00:00:00.000Z'],
  ])('runs %s after %s next at %s', (schedule, after, expected) => {
    expect(next(schedule, after)).toBe(expected);
  });

  it('answers a time strictly after the given one, even when that one matches', () => {
    expect(next('daily', '2025-06-16T00:00:00Z')).toBe('2025-06-17T00:00:00.000Z');
    expect(next('minutely', '2025-06-16T00:00:00Z')).toBe('2025-06-16T00:01:00.000Z');
  });

  it('answers null for an event that never comes again', () => {
    expect(next('2015-10-21', '2025-06-15T00:00:00Z')).toBeNull();
    expect(next('*-02-30', '2025-06-15T00:00:00Z')).toBeNull();
    expect(next('2199-12-31 23:59', '2199-12-31T23:59:00Z')).toBeNull();
  });

  describe('in a time zone', () => {
    it('reads the schedule on that zone’s wall clock', () => {
      // Vienna is UTC+2 in summer, UTC+1 in winter.
      expect(next('sat 02:00', '2025-06-15T12:00:00Z', 'Europe/Vienna')).toBe('2025-06-21T00:00:00.000Z');
      expect(next('sat 02:00', '2025-01-05T12:00:00Z', 'Europe/Vienna')).toBe('2025-01-11T01:00:00.000Z');
      expect(next('daily', '2025-06-15T21:59:00Z', 'America/New_York')).toBe('2025-06-16T04:00:00.000Z');
    });

    it('keeps to UTC when the event ends in UTC', () => {
      expect(next('sat 02:00 UTC', '2025-06-15T12:00:00Z', 'Europe/Vienna')).toBe('2025-06-21T02:00:00.000Z');
    });

    it('skips a wall-clock time the clock jumps over, for that day', () => {
      // Vienna, 2025-03-30: 02:00 CET becomes 03:00 CEST.
      expect(next('02:30', '2025-03-29T12:00:00Z', 'Europe/Vienna')).toBe('2025-03-31T00:30:00.000Z');
      expect(next('minutely', '2025-03-30T00:59:00Z', 'Europe/Vienna')).toBe('2025-03-30T01:00:00.000Z');
    });

    it('runs a wall-clock time the clock passes twice once, the first time', () => {
      // Vienna, 2025-10-26: 03:00 CEST becomes 02:00 CET.
      expect(next('02:30', '2025-10-25T12:00:00Z', 'Europe/Vienna')).toBe('2025-10-26T00:30:00.000Z');
      expect(next('02:30', '2025-10-26T00:30:00Z', 'Europe/Vienna')).toBe('2025-10-27T01:30:00.000Z');
      expect(next('minutely', '2025-10-26T00:59:00Z', 'Europe/Vienna')).toBe('2025-10-26T02:00:00.000Z');
    });

    it('rejects a time zone it does not know', () => {
      expect(() => next('daily', '2025-06-15T00:00:00Z', 'Mars/Olympus')).toThrow("unknown time zone 'Mars/Olympus'");
    });
  });
});
