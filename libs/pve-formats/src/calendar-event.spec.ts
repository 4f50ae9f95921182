import { CalendarEventError, parseCalendarEvent, type CalendarEvent } from './calendar-event.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const ALL = {
  utc: false,
  weekdays: range(0, 6),
  years: undefined,
  months: range(1, 12),
  days: range(1, 31),
  hours: range(0, 23),
  minutes: range(0, 59),
};
const event = (fields: Partial<CalendarEvent>) => ({ ...ALL, ...fields });

const failure = (text: string): CalendarEventError => {
  try {
    parseCalendarEvent(text);
  } catch (error) {
    if (error instanceof CalendarEventError) return error;
    throw error;
  }
  throw new Error(`expected '${text}' not to parse`);
};

describe('parseCalendarEvent', () => {
  it.each<[string, Partial<CalendarEvent>]>([
    ['minutely', {}],
    ['hourly', { minutes: [0] }],
    ['daily', { hours: [0], minutes: [0] }],
    ['weekly', { weekdays: [1], hours: [0], minutes: [0] }],
    ['monthly', { days: [1], hours: [0], minutes: [0] }],
    ['yearly', { months: [1], days: [1], hours: [0], minutes: [0] }],
    ['annually', { months: [1], days: [1], hours: [0], minutes: [0] }],
    ['quarterly', { months: [1, 4, 7, 10], days: [1], hours: [0], minutes: [0] }],
    ['semi-annually', { months: [1, 7], days: [1], hours: [0], minutes: [0] }],
  ])('knows the special value %s', (text, fields) => {
    expect(parseCalendarEvent(text)).toEqual(event(fields));
  });

  it.each<[string, Partial<CalendarEvent>]>([
    ['sat 02:00', { weekdays: [6], hours: [2], minutes: [0] }],
    ['mon..fri 22:30', { weekdays: [1, 2, 3, 4, 5], hours: [22], minutes: [30] }],
    ['mon,wed,fri 8:00', { weekdays: [1, 3, 5], hours: [8], minutes: [0] }],
    ['mon,wed,fri', { weekdays: [1, 3, 5], hours: [0], minutes: [0] }],
    ['sat,sun', { weekdays: [0, 6], hours: [0], minutes: [0] }],
    ['Monday..Wednesday', { weekdays: [1, 2, 3], hours: [0], minutes: [0] }],
    ['fri..mon 12:00', { weekdays: [0, 1, 5, 6], hours: [12], minutes: [0] }],
    ['sun..sat', { weekdays: range(0, 6), hours: [0], minutes: [0] }],
    ['12:00', { hours: [12], minutes: [0] }],
    ['*/15', { minutes: [0, 15, 30, 45] }],
    ['0/5', { minutes: range(0, 11).map((i) => i * 5) }],
    ['*', {}],
    ['30', { minutes: [30] }],
    ['mon..wed 30/10', { weekdays: [1, 2, 3], minutes: [30, 40, 50] }],
    ['2,22:30', { hours: [2, 22], minutes: [30] }],
    ['0/2:00', { hours: range(0, 11).map((i) => i * 2), minutes: [0] }],
    ['12/2:5', { hours: [12, 14, 16, 18, 20, 22], minutes: [5] }],
    ['8:00/15', { hours: [8], minutes: [0, 15, 30, 45] }],
    ['fri 12..13:5/20', { weekdays: [5], hours: [12, 13], minutes: [5, 25, 45] }],
    ['mon..fri 8..17,22:0/15', { weekdays: range(1, 5), hours: [...range(8, 17), 22], minutes: [0, 15, 30, 45] }],
    ['8..17/3:00', { hours: [8, 11, 14, 17], minutes: [0] }],
    ['*-05', { days: [5], hours: [0], minutes: [0] }],
    ['*-*-1 00:00', { days: [1], hours: [0], minutes: [0] }],
    ['Sat *-1..7 15:00', { weekdays: [6], days: range(1, 7), hours: [15], minutes: [0] }],
    ['2015-10-21', { years: [2015], months: [10], days: [21], hours: [0], minutes: [0] }],
    ['2025,2027-01,07-01 6:00', { years: [2025, 2027], months: [1, 7], days: [1], hours: [6], minutes: [0] }],
    ['*-*-* 00:00:00', { hours: [0], minutes: [0] }],
    ['  sat   02:00  ', { weekdays: [6], hours: [2], minutes: [0] }],
  ])('parses %s', (text, fields) => {
    expect(parseCalendarEvent(text)).toEqual(event(fields));
  });

  it('reads a trailing UTC as the event’s own time zone', () => {
    expect(parseCalendarEvent('sat 02:00 UTC')).toEqual(event({ utc: true, weekdays: [6], hours: [2], minutes: [0] }));
    expect(parseCalendarEvent('daily UTC')).toEqual(event({ utc: true, hours: [0], minutes: [0] }));
  });

  it.each([
    ['', 0, 'expected a weekday, a date or a time'],
    ['   ', 0, 'expected a weekday, a date or a time'],
    ['UTC', 0, 'expected a weekday, a date or a time'],
    ['sat x', 4, "unexpected 'x'"],
    ['12:00 extra', 6, "unexpected 'extra'"],
    ['daily 12:00', 0, "unknown weekday 'daily'"],
    ['mon,,tue', 4, 'expected a weekday'],
    ['mon..', 5, 'expected a weekday'],
    ['mon..fri 25:00', 9, 'hour 25 is out of range 0-23'],
    ['12:60', 3, 'minute 60 is out of range 0-59'],
    ['*-13-01', 2, 'month 13 is out of range 1-12'],
    ['*-02-0', 5, 'day 0 is out of range 1-31'],
    ['17..8:00', 0, 'hour range 17..8 runs backwards'],
    ['*/0', 2, 'repetition 0 is out of range 1-59'],
    ['*/60', 2, 'repetition 60 is out of range 1-59'],
    ['*,5', 0, "'*' must stand alone, not in a list"],
    ['5,*', 2, "'*' must stand alone, not in a list"],
    ['sat 0:', 6, 'expected a number'],
    ['12:00:30', 6, 'only second 0 is supported'],
  ])('rejects %j at position %i: %s', (text, position, reason) => {
    const error = failure(text);
    expect(error.position).toBe(position);
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(`${reason} at position ${position}`);
  });
});
