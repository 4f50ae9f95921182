import { createHash } from 'node:crypto';

/**
 * PVE's `digest`: a SHA-1 of the configuration, which a client sends back with a change so that
 * a change based on a configuration someone else has changed since fails (409) instead of
 * overwriting theirs. Keys sorted, one `key: value` line each, as a config file.
 */
export function configDigest(config: Readonly<Record<string, string>>): string {
  const text = Object.keys(config)
    .sort()
    .map((key) => `${key}: ${config[key]}\n`)
    .join('');
  return createHash('sha1').update(text).digest('hex');
}
