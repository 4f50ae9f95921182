import { parseProperties, PropertyStringError } from '@corral/pve-formats';
import { listParam, stringParam } from '../../../http/params.js';

/**
 * PVE's webhook `header` and `secret` lists: property strings `name=<name>,value=<base64 of
 * value>`. A secret given without a value in a change keeps its stored value, as
 * PVE's GUI sends them back.
 */
export interface NamedValue {
  readonly name: string;
  /** Checked base64; absent when the item has no `value`. */
  readonly base64: string | undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** RFC 9110's token, for header names. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A secret's name, as `{{ secrets.<name> }}` refers to it. */
export const SECRET_NAME = /^[A-Za-z0-9_-]+$/;

/** Headers Corral sets itself (docs/webhooks.md "Requests"): a receiver's own value would contradict them. */
const RESERVED_HEADERS = ['host', 'content-type', 'content-length', 'transfer-encoding', 'connection'];

/** One item, as the parameter checked it. */
export function parseNamedValue(text: string, kind: 'header' | 'secret'): NamedValue {
  const properties = parseProperties(text);
  const unknown = [...properties.keys()].find((key) => key !== 'name' && key !== 'value');
  if (unknown !== undefined) throw new PropertyStringError(`has an unknown key '${unknown}': it is name=<name>,value=<base64 of value>`);
  const name = properties.get('name');
  if (name === undefined) throw new PropertyStringError('has no name: it is name=<name>,value=<base64 of value>');
  if (kind === 'header' && !HEADER_NAME.test(name)) throw new PropertyStringError(`'${name}' is no header name`);
  if (kind === 'header' && (RESERVED_HEADERS.includes(name.toLowerCase()) || /^x-corral-/i.test(name)))
    throw new PropertyStringError(`Corral sets the header '${name}' itself`);
  if (kind === 'secret' && !SECRET_NAME.test(name)) throw new PropertyStringError(`'${name}' is no secret name: letters, digits, _ or -`);
  const base64 = properties.get('value');
  if (base64 !== undefined && !BASE64.test(base64)) throw new PropertyStringError(`the value of '${name}' is not base64`);
  if (kind === 'header' && base64 === undefined) throw new PropertyStringError(`header '${name}' has no value`);
  return { name, base64 };
}

/** The list parameter, each item checked: one that is not a valid property string is a 400 naming `kind`. Items stay text, parsed by parseNamedValue. */
export function namedValuesParam(kind: 'header' | 'secret', description: string) {
  const item = stringParam({ description: 'name=<name>,value=<base64 of value>', maxLength: 8192 }).superRefine((text, context) => {
    try {
      parseNamedValue(text, kind);
    } catch (error) {
      if (!(error instanceof PropertyStringError)) throw error;
      context.addIssue({ code: 'custom', message: `${kind} '${text.slice(0, 64)}' ${error.message}` });
    }
  });
  return listParam(item, { description }).refine(
    (items) => new Set(items.map((text) => nameOf(text))).size === items.length,
    `each ${kind} may be given once`,
  );
}

/** The name of an item, for the check that each is given once. */
function nameOf(text: string): string {
  try {
    return parseProperties(text).get('name')?.toLowerCase() ?? text;
  } catch {
    return text;
  }
}

/** How a read shows a header: with its value, as PVE does. */
export function headerString(name: string, value: string): string {
  return `name=${name},value=${Buffer.from(value, 'utf8').toString('base64')}`;
}

/** How a read shows a secret: its name only (write-only). */
export function secretString(name: string): string {
  return `name=${name}`;
}
