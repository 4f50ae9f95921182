import type { CalendarEvent } from './calendar-event.js';
import { DAY, instantOf, MINUTE, wallClockAt } from './wall-clock.js';

// proxmox-time's last year (systemd's limit).
const LAST_YEAR = 2199;

/**
 * The first whole minute strictly after `after` at which the event runs, or null if it never runs
 * again (a date in the past, February 30th). The event is read on the wall clock of `timeZone`
 * (PVE: the node's local time), or in UTC when it ends in `UTC`. Across daylight saving time, a
 * wall-clock time the clock skips does not run that day and one it passes twice runs once, the
 * first time.
 */
export function nextRun(event: CalendarEvent, after: Date, timeZone = 'UTC'): Date | null {
  const zone = event.utc ? 'UTC' : timeZone;
  const from = (Math.floor(wallClockAt(after.getTime(), zone) / MINUTE) + 1) * MINUTE;
  const firstDay = Math.floor(from / DAY) * DAY;
  const firstYear = new Date(from).getUTCFullYear();
  const years = event.years ?? Array.from({ length: LAST_YEAR - firstYear + 1 }, (_, i) => firstYear + i);
  for (const year of years.filter((y) => y >= firstYear)) {
    for (const month of event.months) {
      if (Date.UTC(year, month, 1) <= firstDay) continue;
      for (const day of event.days) {
        const date = Date.UTC(year, month - 1, day);
        const real = new Date(date).getUTCMonth() === month - 1;
        if (date < firstDay || !real || !event.weekdays.includes(new Date(date).getUTCDay())) continue;
        for (const hour of event.hours) {
          for (const minute of event.minutes) {
            const wall = date + hour * 3_600_000 + minute * MINUTE;
            const instant = wall < from ? undefined : instantOf(wall, zone);
            if (instant !== undefined && instant > after.getTime()) return new Date(instant);
          }
        }
      }
    }
  }
  return null;
}
