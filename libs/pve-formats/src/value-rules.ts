import { parseProperties, PropertyStringError } from './property-string.js';

/** The JSON type PVE's schema gives a config key, which the config is read back as. */
export type WireType = 'integer' | 'number' | 'boolean' | 'string';

/**
 * How one config value is checked and written back (PVE's format of the key). `parse` returns the
 * value as it is stored, or throws `ValueError` with a message that follows the key's name:
 * `memory: must be an integer from 16 to 4194304`. `type` is the value's JSON type when the
 * config is read: PVE answers integers as numbers and booleans as 0 or 1, and typed clients fail
 * on the text.
 */
export interface ValueRule {
  readonly description: string;
  readonly type: WireType;
  parse(value: string): string;
}

export class ValueError extends Error {
  override name = 'ValueError';
}

export function integer(description: string, min: number, max: number): ValueRule {
  return {
    description,
    type: 'integer',
    parse(value) {
      if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
        throw new ValueError(`must be an integer from ${min} to ${max}`);
      return String(Number(value));
    },
  };
}

export function decimal(description: string, min: number, max: number): ValueRule {
  return {
    description,
    type: 'number',
    parse(value) {
      if (!/^\d+(?:\.\d+)?$/.test(value) || Number(value) < min || Number(value) > max)
        throw new ValueError(`must be a number from ${min} to ${max}`);
      return String(Number(value));
    },
  };
}

export function flag(description: string): ValueRule {
  return {
    description,
    type: 'boolean',
    parse(value) {
      if (value === '1' || value === 'true') return '1';
      if (value === '0' || value === 'false') return '0';
      throw new ValueError('must be 0 or 1');
    },
  };
}

export function oneOf(description: string, values: readonly string[]): ValueRule {
  return {
    description,
    type: 'string',
    parse(value) {
      if (!values.includes(value)) throw new ValueError(`must be one of ${values.join(', ')}`);
      return value;
    },
  };
}

export function text(description: string, pattern: RegExp, hint: string, maxLength = 255): ValueRule {
  return {
    description,
    type: 'string',
    parse(value) {
      if (value.length > maxLength) throw new ValueError(`must be at most ${maxLength} characters`);
      if (!pattern.test(value)) throw new ValueError(hint);
      return value;
    },
  };
}

/** A property string whose items each have a rule; `defaultKey` names a bare first item. */
export function properties(description: string, items: Readonly<Record<string, ValueRule>>, defaultKey?: string): ValueRule {
  return {
    description,
    type: 'string',
    parse(value) {
      const parsed = parseItems(value, defaultKey === undefined ? {} : { defaultKey });
      return [...parsed]
        .map(([key, item]) => {
          const rule = items[key];
          if (!rule) throw new ValueError(`has an unknown item '${key}' (known: ${Object.keys(items).join(', ')})`);
          const checked = itemValue(key, item, rule);
          return key === defaultKey ? checked : `${key}=${checked}`;
        })
        .join(',');
    },
  };
}

/** `parseProperties` with its errors as ValueErrors. */
export function parseItems(value: string, options: Parameters<typeof parseProperties>[1]): Map<string, string> {
  try {
    return parseProperties(value, options);
  } catch (error) {
    if (error instanceof PropertyStringError) throw new ValueError(error.message);
    throw error;
  }
}

/** One item checked by its rule, the message naming the item. */
export function itemValue(key: string, value: string, rule: ValueRule): string {
  try {
    return rule.parse(value);
  } catch (error) {
    if (error instanceof ValueError) throw new ValueError(`${key}: ${error.message}`);
    throw error;
  }
}

/** The same rule for `<prefix>0` to `<prefix><count - 1>` (`scsi0`..`scsi30`). */
export function numbered(prefix: string, count: number, rule: ValueRule): Record<string, ValueRule> {
  return Object.fromEntries(Array.from({ length: count }, (_, n) => [`${prefix}${n}`, rule]));
}

/** Any one line without control characters (names of things Corral does not interpret). */
export const LINE = /^[^\x00-\x1f\x7f]*$/;
export const PLAIN = (description: string, maxLength = 255) =>
  text(description, LINE, 'must be one line without control characters', maxLength);

/** PVE's tags: split on `,`, `;` or spaces, lower-cased, de-duplicated, sorted, joined with `;`. */
export const TAGS: ValueRule = {
  description: 'Tags, separated by `;`, `,` or spaces; stored sorted and lower-cased.',
  type: 'string',
  parse(value) {
    const tags = [
      ...new Set(
        value
          .split(/[,; ]+/)
          .filter((tag) => tag !== '')
          .map((tag) => tag.toLowerCase()),
      ),
    ].sort();
    for (const tag of tags)
      if (!/^[a-z0-9_][a-z0-9_+.-]*$/.test(tag)) throw new ValueError(`tag '${tag}' must be letters, digits and _ + . -`);
    return tags.join(';');
  },
};

/** A DNS name's dot-separated labels: letters, digits and inner hyphens, at most 63 characters each. */
const DNS_LABELS = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*';
export const DNS_NAME = text(
  'A DNS name.',
  new RegExp(`^(?=.{1,253}$)${DNS_LABELS}$`),
  'must be a DNS name (letters, digits, inner hyphens, dot-separated)',
);
/** PVE's `dns-name-list`: DNS names separated by spaces, commas or semicolons. */
export const DNS_NAME_LIST = new RegExp(`^${DNS_LABELS}(?:[ ,;]+${DNS_LABELS})*$`);
export const MAC = text('A MAC address.', /^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/, 'must be a MAC address such as BC:24:11:0A:1B:2C');
export const BRIDGE = text('A host bridge.', /^[A-Za-z][A-Za-z0-9_.-]{0,14}$/, 'must be an interface name');
export const IPV4_CIDR = text(
  'An IPv4 address with its prefix length.',
  /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\/(?:3[0-2]|[12]?\d)$/,
  'must be an IPv4 address with a prefix length, e.g. 192.0.2.10/24',
);
export const IPV4 = text(
  'An IPv4 address.',
  /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/,
  'must be an IPv4 address',
);
export const IPV6_SETTING = text(
  'An IPv6 address with its prefix length, `auto` or `dhcp`.',
  /^(?:auto|dhcp|manual|[0-9A-Fa-f:]+\/\d{1,3})$/,
  'must be auto, dhcp, manual or an IPv6 address with a prefix length',
);
export const IPV6 = text('An IPv6 address.', /^[0-9A-Fa-f:]+$/, 'must be an IPv6 address');
export const VLAN = integer('A VLAN tag.', 1, 4094);

/** A snippet volume `<storage>:snippets/<file>` (hook scripts, cloud-init files). */
export const SNIPPET_VOLUME = /^[A-Za-z][A-Za-z0-9_.-]*:snippets\/[A-Za-z0-9_.+-]+$/;

/**
 * PVE's start order: `[order=]<n>,up=<s>,down=<s>`; empty means none, as PVE takes it from
 * clients that always send the key.
 */
export const STARTUP = text(
  'Start order: `[order=]<n>,up=<s>,down=<s>` (empty: none).',
  /^(?:(?:(?:order=)?\d+|up=\d+|down=\d+)(?:,(?:order=\d+|up=\d+|down=\d+))*)?$/,
  'must be order=<n>,up=<seconds>,down=<seconds>',
);

/** A script run at each phase of the guest's life, which only root@pam may set, as in PVE. */
export const HOOKSCRIPT = text(
  'A script run at each phase of the guest (root@pam only, as in PVE): `<storage>:snippets/<file>`.',
  SNIPPET_VOLUME,
  'must be a snippet volume <storage>:snippets/<file>',
);
