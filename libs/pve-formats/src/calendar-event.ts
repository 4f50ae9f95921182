/**
 * PVE's calendar events, the `schedule` of backup jobs (admin guide "Schedule Format";
 * proxmox-time `parse_calendar_event`): `[WEEKDAYS] [[YEARS-]MONTHS-DAYS] [[HOURS:]MINUTES[:SECONDS]] [UTC]`
 * or one of the special names (`daily`, `weekly`, ...). Each field is `*` (every value, or every
 * step-th with `/step`) or a comma list of `n`, `n..m`, `n/step` (from n to the field's end) and
 * `n..m/step`; weekdays are `mon`..`sun` (or spelled out), lists and ranges of them, a range
 * wrapping past Sunday (`fri..mon`). A bare number is minutes (`30`, every 15 minutes with a star
 * and `/15`); without a time the event runs at 00:00. Every field must match, the weekday and the
 * day of the month too.
 */
export interface CalendarEvent {
  /** The event ends in `UTC`, so it is read in UTC whatever time zone the caller uses. */
  readonly utc: boolean;
  /** 0 = Sunday ... 6 = Saturday, as `Date.getUTCDay()`. */
  readonly weekdays: readonly number[];
  /** Undefined: every year. */
  readonly years?: readonly number[];
  /** 1 = January. */
  readonly months: readonly number[];
  readonly days: readonly number[];
  readonly hours: readonly number[];
  readonly minutes: readonly number[];
}

/** A schedule that does not parse; `position` is the 0-based offset of the offending character. */
export class CalendarEventError extends Error {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`${reason} at position ${position}`);
    this.name = 'CalendarEventError';
  }
}

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
}
const YEAR: Field = { name: 'year', min: 0, max: 2199 };
const MONTH: Field = { name: 'month', min: 1, max: 12 };
const DAY: Field = { name: 'day', min: 1, max: 31 };
const HOUR: Field = { name: 'hour', min: 0, max: 23 };
const MINUTE: Field = { name: 'minute', min: 0, max: 59 };
const SECOND: Field = { name: 'second', min: 0, max: 59 };

const every = (field: Field) => Array.from({ length: field.max - field.min + 1 }, (_, i) => field.min + i);
const WEEK = [0, 1, 2, 3, 4, 5, 6];
const MIDNIGHT = { weekdays: WEEK, months: every(MONTH), days: every(DAY), hours: [0], minutes: [0] };

const SPECIAL: ReadonlyMap<string, Omit<CalendarEvent, 'utc'>> = new Map([
  ['minutely', { ...MIDNIGHT, hours: every(HOUR), minutes: every(MINUTE) }],
  ['hourly', { ...MIDNIGHT, hours: every(HOUR) }],
  ['daily', MIDNIGHT],
  ['weekly', { ...MIDNIGHT, weekdays: [1] }],
  ['monthly', { ...MIDNIGHT, days: [1] }],
  ['yearly', { ...MIDNIGHT, months: [1], days: [1] }],
  ['annually', { ...MIDNIGHT, months: [1], days: [1] }],
  ['quarterly', { ...MIDNIGHT, months: [1, 4, 7, 10], days: [1] }],
  ['semiannually', { ...MIDNIGHT, months: [1, 7], days: [1] }],
  ['semi-annually', { ...MIDNIGHT, months: [1, 7], days: [1] }],
]);

// Monday first, so that a range such as `sat..mon` wraps past Sunday as in PVE; 7 is Sunday.
const WEEKDAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

interface Num {
  readonly value: number;
  /** Where it stands, for the error messages. */
  readonly at: number;
}

/** One list item as written: `*` (no start), `n`, `n..m`, with an optional `/step`. */
interface Item {
  readonly at: number;
  readonly start?: Num;
  readonly end?: Num;
  readonly step?: Num;
}

class Cursor {
  constructor(
    readonly text: string,
    public pos: number,
  ) {}
  get char(): string {
    return this.text.charAt(this.pos);
  }
  take(token: string): boolean {
    if (!this.text.startsWith(token, this.pos)) return false;
    this.pos += token.length;
    return true;
  }
  skipSpaces(): void {
    while (/\s/.test(this.char)) this.pos += 1;
  }
  fail(reason: string, at = this.pos): never {
    throw new CalendarEventError(at, reason);
  }
}

/** Parses a schedule; throws a CalendarEventError saying what was expected where. */
export function parseCalendarEvent(text: string): CalendarEvent {
  let body = text.trimEnd();
  const utc = body.endsWith('UTC');
  if (utc) body = body.slice(0, -3).trimEnd();
  const special = SPECIAL.get(body.trim());
  if (special !== undefined) return { utc, ...special };

  const cursor = new Cursor(body, 0);
  cursor.skipSpaces();
  const weekdays = /[a-z]/i.test(cursor.char) ? parseWeekdays(cursor) : undefined;
  cursor.skipSpaces();
  let date: Pick<CalendarEvent, 'years' | 'months' | 'days'> | undefined;
  let time: Pick<CalendarEvent, 'hours' | 'minutes'> | undefined;
  if (/[\d*]/.test(cursor.char)) {
    const first = parseList(cursor);
    if (cursor.char === '-') {
      date = parseDate(cursor, first);
      cursor.skipSpaces();
      if (/[\d*]/.test(cursor.char)) time = parseTime(cursor, parseList(cursor));
    } else {
      time = parseTime(cursor, first);
    }
  }
  cursor.skipSpaces();
  if (weekdays === undefined && date === undefined && time === undefined) cursor.fail('expected a weekday, a date or a time');
  if (cursor.pos < body.length) cursor.fail(`unexpected '${body.slice(cursor.pos)}'`);
  return { utc, weekdays: weekdays ?? WEEK, months: every(MONTH), days: every(DAY), ...date, ...(time ?? { hours: [0], minutes: [0] }) };
}

function parseWeekdays(cursor: Cursor): number[] {
  const days = new Set<number>();
  do {
    const first = parseWeekday(cursor);
    const last = cursor.take('..') ? parseWeekday(cursor) : first;
    for (let day = first; ; day = (day % 7) + 1) {
      days.add(day % 7);
      if (day === last) break;
    }
  } while (cursor.take(','));
  return [...days].sort((a, b) => a - b);
}

/** Monday = 1 ... Sunday = 7. */
function parseWeekday(cursor: Cursor): number {
  const at = cursor.pos;
  const name = /^[a-z]*/i.exec(cursor.text.slice(at))?.[0].toLowerCase() ?? '';
  if (name === '') cursor.fail('expected a weekday');
  const index = WEEKDAY_NAMES.findIndex((full) => name === full || name === full.slice(0, 3));
  if (index < 0) cursor.fail(`unknown weekday '${name}'`, at);
  cursor.pos += name.length;
  return index + 1;
}

function parseDate(cursor: Cursor, first: readonly Item[]): Pick<CalendarEvent, 'years' | 'months' | 'days'> {
  cursor.take('-');
  const second = parseList(cursor);
  if (!cursor.take('-')) return { months: resolve(first, MONTH), days: resolve(second, DAY) };
  const years = resolve(first, YEAR);
  return {
    years: years.length === every(YEAR).length ? undefined : years,
    months: resolve(second, MONTH),
    days: resolve(parseList(cursor), DAY),
  };
}

function parseTime(cursor: Cursor, first: readonly Item[]): Pick<CalendarEvent, 'hours' | 'minutes'> {
  if (!cursor.take(':')) return { hours: every(HOUR), minutes: resolve(first, MINUTE) };
  const minutes = resolve(parseList(cursor), MINUTE);
  if (cursor.take(':')) {
    const at = cursor.pos;
    const seconds = resolve(parseList(cursor), SECOND);
    // Corral schedules to the minute; PVE's own schedules leave seconds at 0.
    if (seconds.length !== 1 || seconds[0] !== 0) cursor.fail('only second 0 is supported', at);
  }
  return { hours: resolve(first, HOUR), minutes };
}

function parseList(cursor: Cursor): Item[] {
  const items: Item[] = [];
  do {
    const at = cursor.pos;
    if (cursor.take('*')) {
      const step = cursor.take('/') ? parseNumber(cursor) : undefined;
      if (items.length > 0 || cursor.char === ',') cursor.fail("'*' must stand alone, not in a list", at);
      return [{ at, step }];
    }
    const start = parseNumber(cursor);
    const end = cursor.take('..') ? parseNumber(cursor) : undefined;
    items.push({ at, start, end, step: cursor.take('/') ? parseNumber(cursor) : undefined });
  } while (cursor.take(','));
  return items;
}

function parseNumber(cursor: Cursor): Num {
  const at = cursor.pos;
  const digits = /^\d*/.exec(cursor.text.slice(at))?.[0] ?? '';
  if (digits === '') cursor.fail('expected a number');
  cursor.pos += digits.length;
  return { value: Number(digits), at };
}

/** The sorted values a list stands for, each checked against the field's range. */
function resolve(items: readonly Item[], field: Field): number[] {
  const values = new Set<number>();
  const check = ({ value, at }: Num) => {
    if (value < field.min || value > field.max)
      throw new CalendarEventError(at, `${field.name} ${value} is out of range ${field.min}-${field.max}`);
    return value;
  };
  for (const { at, start, end, step } of items) {
    const first = start === undefined ? field.min : check(start);
    // A star, with or without a step, and `n/step` run to the field's end.
    const last = end !== undefined ? check(end) : start === undefined || step !== undefined ? field.max : first;
    if (last < first) throw new CalendarEventError(at, `${field.name} range ${first}..${last} runs backwards`);
    if (step !== undefined && (step.value < 1 || step.value > field.max)) {
      throw new CalendarEventError(step.at, `repetition ${step.value} is out of range 1-${field.max}`);
    }
    for (let value = first; value <= last; value += step?.value ?? 1) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}
