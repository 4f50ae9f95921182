import { UsageError } from './usage-error.js';

/** The control plane when CORRAL_URL is unset: a local one on PVE's port. */
export const DEFAULT_URL = 'https://127.0.0.1:8006';

/** A `0|1` option as PVE's booleans are sent; absent stays absent, so the API's default applies. */
export function flagValue(option: string, value: string | undefined): '0' | '1' | undefined {
  if (value === undefined || value === '0' || value === '1') return value;
  throw new UsageError(`--${option} must be 0 or 1, not '${value}'`);
}

export function requiredOption(option: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`missing --${option}`);
  return value;
}

/** An https:// URL; `name` is what the message calls it (CORRAL_URL, <url>). */
export function httpsUrl(name: string, text: string): URL {
  const parsed = URL.canParse(text) ? new URL(text) : undefined;
  if (parsed?.protocol !== 'https:') throw new UsageError(`${name} must be an https:// URL such as ${DEFAULT_URL}, not '${text}'`);
  return parsed;
}

/** A whole number of seconds, as the API takes durations. */
export function secondsValue(option: string, value: string | undefined): string | undefined {
  if (value === undefined || /^[0-9]+$/.test(value)) return value;
  throw new UsageError(`--${option} must be a whole number of seconds, not '${value}'`);
}
