import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * PVE's ticket and CSRF token formats, signed with HMAC-SHA256 instead of
 * PVE's RSA: clients treat everything after the user id as opaque.
 *   ticket: `PVE:<userid>:<8 upper hex epoch>::<base64 signature>`
 *   CSRF:   `<8 upper hex epoch>:<43 chars of base64 HMAC>`
 */
export const TICKET_LIFETIME_S = 7200;
/** Tickets from a clock up to five minutes ahead are accepted, as in PVE. */
export const CLOCK_SKEW_S = 300;

export interface SigningKey {
  readonly id: number;
  readonly secret: Buffer;
}

export function signTicket(userid: string, nowS: number, key: SigningKey): string {
  const plain = `PVE:${userid.replaceAll(':', '%3A')}:${hexTime(nowS)}`;
  return `${plain}::${mac(key.secret, 'ticket', plain).toString('base64')}`;
}

/** The user id of a ticket that one of `keys` signed and that is neither expired nor from the future; otherwise null. */
export function verifyTicket(ticket: string, nowS: number, keys: readonly SigningKey[]): string | null {
  const match = /^(PVE:([^:]+):([0-9A-F]{8}))::([A-Za-z0-9+/]+={0,2})$/.exec(ticket);
  if (!match) return null;
  const [, plain, userid, hex, signature] = match as unknown as [string, string, string, string, string];
  if (!fresh(Number.parseInt(hex, 16), nowS)) return null;
  const given = Buffer.from(signature, 'base64');
  const signed = keys.some((key) => same(given, mac(key.secret, 'ticket', plain)));
  return signed ? userid.replaceAll('%3A', ':') : null;
}

/** The time a ticket was issued, for renewal checks, without verifying it. */
export function ticketTime(ticket: string): number | null {
  const [, hex] = /^PVE:[^:]+:([0-9A-F]{8})::/.exec(ticket) ?? [];
  return hex === undefined ? null : Number.parseInt(hex, 16);
}

export function signCsrfToken(userid: string, nowS: number, key: SigningKey): string {
  const hex = hexTime(nowS);
  return `${hex}:${mac(key.secret, 'csrf', `${hex}:${userid}`).toString('base64').replace(/=+$/, '')}`;
}

/** Whether `token` is a CSRF prevention token for `userid` that one of `keys` made within a ticket's lifetime. */
export function verifyCsrfToken(token: string, userid: string, nowS: number, keys: readonly SigningKey[]): boolean {
  const match = /^([0-9A-F]{8}):([A-Za-z0-9+/]{43})$/.exec(token);
  if (!match) return false;
  const [, hex, signature] = match as unknown as [string, string, string];
  if (!fresh(Number.parseInt(hex, 16), nowS)) return false;
  const given = Buffer.from(signature, 'base64');
  return keys.some((key) => same(given, mac(key.secret, 'csrf', `${hex}:${userid}`)));
}

function fresh(issuedS: number, nowS: number): boolean {
  const age = nowS - issuedS;
  return age > -CLOCK_SKEW_S && age < TICKET_LIFETIME_S;
}

function hexTime(nowS: number): string {
  return Math.floor(nowS).toString(16).toUpperCase().padStart(8, '0');
}

// One key, two purposes kept apart by a label: a ticket signature is never a valid CSRF token.
function mac(secret: Buffer, purpose: 'ticket' | 'csrf', text: string): Buffer {
  return createHmac('sha256', secret).update(`${purpose}\0${text}`).digest();
}

function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
