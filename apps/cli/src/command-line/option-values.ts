import { UsageError } from './usage-error.js';

/** A `0|1` option as PVE's booleans are sent (facts.md 0); absent stays absent, so the API's default applies. */
export function flagValue(option: string, value: string | undefined): '0' | '1' | undefined {
  if (value === undefined || value === '0' || value === '1') return value;
  throw new UsageError(`--${option} must be 0 or 1, not '${value}'`);
}

export function requiredOption(option: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`missing --${option}`);
  return value;
}
