import { configDigest } from '@corral/pve-formats';
import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import { commaListParam, stringParam } from './params.js';

/*
 * How PVE's API changes a configuration entry, as its endpoints share it: the settings to reset
 * (`delete`), the `digest` of the read a change is based on, and flags shown as 1 or left out.
 */

/** `delete`: the settings a change resets, comma-separated, of those `deletable`. */
export function deleteParam(deletable: readonly [string, ...string[]]) {
  return commaListParam(
    z.enum(deletable, { error: (issue) => `cannot delete '${String(issue.input)}'` }),
    'Settings to reset, comma-separated.',
  );
}

export const digestParam = () =>
  stringParam({
    description: 'The `digest` of the read this change is based on: refused (409) if the entry changed since.',
    maxLength: 64,
  });

/** A setting given both to set and in `delete`: a 400 naming `delete`. */
export function setAndDeleted(params: Readonly<Record<string, unknown>>, deleted: readonly string[]): string | undefined {
  return deleted.find((key) => params[key] !== undefined);
}

/**
 * Refuses a change based on a stale read, with PVE's message. 409 (PVE answers 500): the caller's
 * copy conflicts with the stored one.
 */
export function checkDigest(current: string, given: string | undefined): void {
  if (given !== undefined && given !== current)
    throw new ApiError('CONFIG_CHANGED', 'detected modified configuration - file changed by other user? Try again.');
}

/** PVE shows a set flag as 1 and leaves out one that is not set. */
export const SetFlag = z.literal(1).optional();

/** `{ key: 1 }` when `set`, else nothing: how PVE shows a flag. */
export function flag<K extends string>(key: K, set: boolean): Partial<Record<K, 1>> {
  return (set ? { [key]: 1 } : {}) as Partial<Record<K, 1>>;
}

/** PVE's `digest` of an entry, over what a read shows (so a change of a secret's value alone leaves it as it was). */
export function entryDigest(entry: object): string {
  return configDigest(Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, JSON.stringify(value)])));
}
