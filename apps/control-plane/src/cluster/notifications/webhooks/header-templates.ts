/**
 * PVE's webhook headers are Handlebars templates; Corral fills in only `{{ secrets.<name> }}`, so
 * that a credential a receiver wants in a header (`Authorization: Bearer {{ secrets.token }}`)
 * is kept write-only like the other secrets (docs/webhooks.md "Headers").
 */

const SECRET_REFERENCE = /\{\{\s*secrets\.([A-Za-z0-9_-]+)\s*\}\}/g;

/** What Node accepts in a header value (its `checkInvalidHeaderChar`). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export class HeaderTemplateError extends Error {
  override name = 'HeaderTemplateError';
}

/** The secrets a header value refers to; throws when it holds any other template or a character no header may carry. */
export function referencedSecrets(value: string): string[] {
  if (!HEADER_VALUE.test(value))
    throw new HeaderTemplateError('holds a character no header value may carry (a line break, a control character)');
  if (value.replace(SECRET_REFERENCE, '').includes('{{'))
    throw new HeaderTemplateError('holds a template other than {{ secrets.<name> }}, the only one Corral fills in');
  return [...value.matchAll(SECRET_REFERENCE)].map((match) => match[1] ?? '');
}

/** The value with each `{{ secrets.<name> }}` replaced by the secret (as latin1 text: header bytes); a missing secret leaves nothing. */
export function fillSecrets(value: string, secrets: ReadonlyMap<string, Buffer>): string {
  return value.replace(SECRET_REFERENCE, (_reference, name: string) => secrets.get(name)?.toString('latin1') ?? '');
}
