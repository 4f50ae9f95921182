import { z } from 'zod';
import { flag, type ValueRule, type WireType } from '@corral/pve-formats';
import type { GuestKind } from './guest-kinds.js';

/** Keys Corral writes itself into a guest's config; no config change sets them. */
const WRITTEN_KEYS: Readonly<Record<string, ValueRule>> = {
  template: flag('1: the guest is a template (it cannot start; clones are made of it).'),
  parent: { description: 'The snapshot the current state is based on.', type: 'string', parse: (value) => value },
};

/** PVE answers a config's `number` keys (`cpulimit`, `migrate_downtime`) as text: its Perl keeps them strings, and Telmate's provider asserts a string. */
const WIRE_SCHEMAS: Readonly<Record<WireType, () => z.ZodType>> = {
  integer: () => z.number().int(),
  number: () => z.string().regex(/^\d+(?:\.\d+)?$/),
  boolean: () => z.union([z.literal(0), z.literal(1)]),
  string: () => z.string(),
};

function ruleOf(kind: GuestKind, key: string): ValueRule | undefined {
  return kind.keys[key] ?? WRITTEN_KEYS[key];
}

/**
 * A stored config (every value text, as PVE's config file holds it) as PVE answers it: each value
 * in its key's JSON type: integers as numbers, booleans as 0 or 1, and numbers (`cpulimit`) as
 * text, as PVE sends them.
 */
export function wireConfig(kind: GuestKind, config: Readonly<Record<string, string>>): Record<string, string | number> {
  const wire: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(config)) {
    const type = ruleOf(kind, key)?.type ?? 'string';
    wire[key] = type === 'string' || type === 'number' ? value : type === 'boolean' ? (value === '1' ? 1 : 0) : Number(value);
  }
  return wire;
}

/**
 * The declaration of a config as `wireConfig` answers it: every key the kind knows, typed, and
 * `extra`; any other key (PVE's `unused<n>`) is text.
 */
export function configSchema<S extends z.ZodRawShape>(kind: GuestKind, extra: S) {
  const keys = Object.entries({ ...WRITTEN_KEYS, ...kind.keys }).map(([key, rule]) => [
    key,
    WIRE_SCHEMAS[rule.type]().optional().meta({ description: rule.description }),
  ]);
  return z
    .object({ ...(Object.fromEntries(keys) as Record<string, z.ZodOptional>), ...extra })
    .catchall(z.string().meta({ description: 'Other keys, such as `unused<n>`: volumes of the guest no disk key names.' }));
}
