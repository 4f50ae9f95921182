import { UsageError } from './usage-error.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_SECONDS = 86_400;

/**
 * `--expire YYYY-MM-DD` as the API's `expire` epoch: the token stays valid through that
 * whole day in UTC, so it expires at the next day's 00:00 UTC.
 */
export function expireEpoch(date: string): number {
  const [year, month, day] = (DATE.exec(date) ?? []).slice(1).map(Number);
  if (year === undefined || month === undefined || day === undefined) throw notADate(date);
  const start = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2025-02-30 over into March: a real date comes back unchanged.
  if (start.getUTCFullYear() !== year || start.getUTCMonth() !== month - 1 || start.getUTCDate() !== day) throw notADate(date);
  return start.getTime() / 1000 + DAY_SECONDS;
}

function notADate(date: string): UsageError {
  return new UsageError(`--expire: '${date}' is not a date YYYY-MM-DD`);
}
