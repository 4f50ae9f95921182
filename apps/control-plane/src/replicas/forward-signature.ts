import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header of a request one replica forwards to another: who forwarded it, when, for which client, signed. */
export const FORWARDED_HEADER = 'x-corral-forwarded';

/** How far a forwarded request's time may be from the receiver's clock. */
const FRESH_MS = 60_000;

/** What a valid forwarding header says. */
export interface Forwarding {
  /** The replica that forwarded the request. */
  readonly replica: string;
  /** The address its client connected from. */
  readonly client: string;
}

/** The request a signature covers: its method and its whole path and query. */
export interface SignedRequest {
  readonly method: string;
  readonly url: string;
}

/**
 * The forwarding header's value, `<replica> <ms since epoch> <client> <HMAC-SHA256>`: the
 * signature covers those and the request's method and URL, with the secret every replica of the
 * cluster shares. The body is not signed: it travels over TLS to a replica that presents the
 * cluster's certificate.
 */
export function signForwarding(secret: string, forwarding: Forwarding, request: SignedRequest, now = Date.now()): string {
  const time = String(now);
  return `${forwarding.replica} ${time} ${forwarding.client} ${mac(secret, forwarding, time, request)}`;
}

/** The forwarding the header states, or null when it is malformed, stale or not signed with `secret`. */
export function verifyForwarding(secret: string, header: string, request: SignedRequest, now = Date.now()): Forwarding | null {
  const [replica, time, client, signature, ...rest] = header.split(' ');
  if (replica === undefined || time === undefined || client === undefined || signature === undefined || rest.length > 0) return null;
  if (!/^\d{1,15}$/.test(time) || Math.abs(now - Number(time)) > FRESH_MS) return null;
  const expected = Buffer.from(mac(secret, { replica, client }, time, request));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { replica, client } : null;
}

function mac(secret: string, { replica, client }: Forwarding, time: string, { method, url }: SignedRequest): string {
  return createHmac('sha256', secret).update([replica, time, client, method, url].join('\n')).digest('base64url');
}
