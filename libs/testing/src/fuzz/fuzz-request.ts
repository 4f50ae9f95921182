import type { ApiOperation, ParamSchema } from './api-operations.js';
import { hostileValue, type WireValue } from './hostile-values.js';
import type { SeededRandom } from './seeded-random.js';

/** One request as sent: relative to `/api2/json`, its body already encoded. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

/** A caller's headers: for reading, and for changing (a ticket needs the CSRF token there). */
export interface FuzzCaller {
  readonly name: string;
  readonly read: Readonly<Record<string, string>>;
  readonly write: Readonly<Record<string, string>>;
}

/** Ids that exist, by parameter name (`vmid`, `node`, `storage`...): half the path parameters get one of them. */
export type KnownIds = Readonly<Record<string, readonly string[]>>;

// Ids of the right shape that exist nowhere.
const MISSING_IDS: Readonly<Record<string, string>> = {
  vmid: '999999',
  node: 'nosuchnode',
  userid: 'nosuch@pve',
  upid: 'UPID:nosuchnode:00000000:00000000:00000000:qmstart:100:root@pam:',
};

const MALFORMED_BODIES: readonly { readonly type: string; readonly body: string }[] = [
  { type: 'application/json', body: '{"a":' },
  { type: 'application/json', body: '[1,2]' },
  { type: 'application/json', body: '"text"' },
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: '{"__proto__":{"x":1},"constructor":{"prototype":{"y":1}}}' },
  { type: 'text/plain', body: 'a=b' },
  { type: 'application/x-www-form-urlencoded', body: '%zz=%' },
  { type: 'multipart/form-data; boundary=x', body: '--x\r\nbroken' },
];

/**
 * One request to `operation` from `caller`: the path parameters an existing id, a missing one or
 * a hostile value; then the required parameters (and some others) plausible with one parameter
 * (or an unknown one) hostile, or all of them plausible, or every parameter hostile at random, or
 * a malformed body. Bodies are a
 * form or JSON at random, as PVE clients send both.
 */
export function fuzzRequest(operation: ApiOperation, caller: FuzzCaller, known: KnownIds, random: SeededRandom): FuzzRequest {
  const path = operation.path.replace(/\{([^}+]+)\+?\}/g, (_match, name: string) => encodeURIComponent(pathValue(name, known, random)));
  const writes = operation.method === 'POST' || operation.method === 'PUT';
  const headers = writes || operation.method === 'DELETE' ? caller.write : caller.read;
  if (writes && random.chance(0.05)) {
    const malformed = random.pick(MALFORMED_BODIES);
    return { method: operation.method, path, query: '', headers: { ...headers, 'content-type': malformed.type }, body: malformed.body };
  }
  const params = fuzzParams(operation, known, random);
  if (!writes) return { method: operation.method, path, query: formEncode(params), headers };
  if (operation.upload) return { method: operation.method, path, query: '', ...multipart(params, headers) };
  if (random.chance(0.5)) {
    return {
      method: operation.method,
      path,
      query: '',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(params),
    };
  }
  return {
    method: operation.method,
    path,
    query: '',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: formEncode(params),
  };
}

function pathValue(name: string, known: KnownIds, random: SeededRandom): string {
  const existing = known[name] ?? [];
  const roll = random.next();
  if (existing.length > 0 && roll < 0.55) return random.pick(existing);
  if (roll < 0.75) return MISSING_IDS[name] ?? 'nosuch';
  const value = hostileValue(random);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function fuzzParams(operation: ApiOperation, known: KnownIds, random: SeededRandom): Record<string, WireValue> {
  const names = Object.keys(operation.params);
  const params: Record<string, WireValue> = {};
  const roll = random.next();
  if (roll < 0.15) {
    for (const name of names) if (random.chance(0.3)) params[name] = hostileValue(random);
    for (const name of operation.required) params[name] ??= hostileValue(random);
    return params;
  }
  for (const name of operation.required) params[name] = plausibleValue(name, operation.params[name] ?? {}, known, random);
  for (const name of names) if (random.chance(0.2)) params[name] = plausibleValue(name, operation.params[name] ?? {}, known, random);
  if (roll > 0.85) return params;
  const target =
    names.length === 0 || random.chance(0.1) ? random.pick(['bogus', '', 'a b', '__proto__', 'constructor']) : random.pick(names);
  params[target] = hostileValue(random);
  return params;
}

/** A value a client might well send for a parameter: an existing id, one of its enum, its minimum, 1. */
function plausibleValue(name: string, schema: ParamSchema, known: KnownIds, random: SeededRandom): WireValue {
  const existing = known[name];
  if (existing && existing.length > 0) return random.pick(existing);
  const values = schema['enum'];
  if (Array.isArray(values) && values.length > 0) return random.pick(values as WireValue[]);
  if (schema['type'] === 'integer' || schema['type'] === 'number') return typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
  if (schema['type'] === 'boolean') return random.pick([0, 1]);
  return random.pick(['fuzz', 'local', '1']);
}

/** A form (or query string): an array is the key repeated, an object its JSON, null empty. */
function formEncode(params: Record<string, WireValue>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? (value as WireValue[]) : [value]) form.append(name, scalarText(item));
  }
  return form.toString();
}

function scalarText(value: WireValue): string {
  if (value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function multipart(
  params: Record<string, WireValue>,
  headers: Readonly<Record<string, string>>,
): { headers: Record<string, string>; body: Buffer } {
  const boundary = 'corral-fuzz-boundary';
  const parts = Object.entries(params).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${scalarText(value)}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="filename"; filename="fuzz.iso"\r\nContent-Type: application/octet-stream\r\n\r\nfuzz\r\n--${boundary}--\r\n`,
  );
  return { headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.from(parts.join('')) };
}
