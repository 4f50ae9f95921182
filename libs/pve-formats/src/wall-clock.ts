/**
 * Wall-clock time in an IANA time zone. PVE reads backup periods and schedules in the node's local
 * time; Corral's control plane has no node-local clock, so both take the zone as a parameter.
 *
 * A wall-clock reading is carried as the epoch milliseconds of the UTC date with the same fields
 * (`2025-03-30 02:30` in Europe/Vienna is `Date.UTC(2025, 2, 30, 2, 30)`), so the UTC getters of
 * a `Date` read its fields and adding minutes or days is plain arithmetic.
 */

export const MINUTE = 60_000;
export const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new RangeError(`unknown time zone '${timeZone}'`);
    }
    formatters.set(timeZone, format);
  }
  return format;
}

/** The wall-clock reading in `timeZone` at the instant `epochMs` (whole seconds). */
export function wallClockAt(epochMs: number, timeZone: string): number {
  const seconds = Math.floor(epochMs / 1000) * 1000;
  if (timeZone === 'UTC') return seconds;
  const field = new Map(
    formatter(timeZone)
      .formatToParts(seconds)
      .map((part) => [part.type, Number(part.value)]),
  );
  const get = (type: Intl.DateTimeFormatPartTypes) => field.get(type) ?? 0;
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}

/**
 * The first instant at which the clock in `timeZone` reads `wall`; undefined when the clock skips
 * it (the hour lost to daylight saving time). A reading repeated when the clock falls back gives
 * its first occurrence.
 */
export function instantOf(wall: number, timeZone: string): number | undefined {
  if (timeZone === 'UTC') return wall;
  // Offsets change at most once within a day either side, so these are the only candidates.
  const candidates = [DAY, -DAY].map((shift) => wall - (wallClockAt(wall + shift, timeZone) - (wall + shift)));
  return candidates.sort((a, b) => a - b).find((instant) => wallClockAt(instant, timeZone) === wall);
}
