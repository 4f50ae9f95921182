/**
 * What a request presents as credentials (PVE's ticket cookie, CSRF header and API token header), read from the
 * `Authorization` header, the `PVEAuthCookie` cookie, or the `token` query parameter (not
 * recommended: query strings end up in logs).
 */
export type Credentials =
  | { readonly kind: 'ticket'; readonly ticket: string }
  /** `tokenid` null: Corral's `<userid>=<secret>` form, where the secret finds the token. */
  | { readonly kind: 'token'; readonly userid: string; readonly tokenid: string | null; readonly secret: string }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'bearer'; readonly jwt: string }
  | { readonly kind: 'malformed'; readonly why: string }
  | { readonly kind: 'none' };

export const TICKET_COOKIE = 'PVEAuthCookie';
export const TOKEN_QUERY_PARAM = 'token';

// PVE's extraction: the key, then `=` or a space, then the value up to `;`.
const TOKEN_SCHEME = /^(?:PVE|SVC)APIToken[= ](.*)$/s;
const TICKET_SCHEME = new RegExp(`^${TICKET_COOKIE}[= ]([^;]*)`);
const BASIC_SCHEME = /^Basic +(\S+)\s*$/i;
const BEARER_SCHEME = /^Bearer +(\S+)\s*$/i;

export interface CredentialSources {
  readonly authorization?: string | undefined;
  readonly cookie?: string | undefined;
  readonly tokenQuery?: unknown;
}

/** The credentials a request carries: the Authorization header first, then the cookie, then the `token` query parameter. */
export function readCredentials(sources: CredentialSources): Credentials {
  const authorization = sources.authorization?.trim();
  if (authorization) return fromAuthorization(authorization);
  const ticket = cookieValue(sources.cookie, TICKET_COOKIE);
  if (ticket) return { kind: 'ticket', ticket };
  if (sources.tokenQuery !== undefined) {
    if (typeof sources.tokenQuery !== 'string') return { kind: 'malformed', why: 'the token query parameter is given more than once' };
    return parseToken(TOKEN_SCHEME.exec(sources.tokenQuery)?.[1] ?? sources.tokenQuery);
  }
  return { kind: 'none' };
}

function fromAuthorization(header: string): Credentials {
  const [, token] = TOKEN_SCHEME.exec(header) ?? [];
  if (token !== undefined) return parseToken(token.trim());
  const [, ticket] = TICKET_SCHEME.exec(header) ?? [];
  if (ticket !== undefined) return { kind: 'ticket', ticket: percentDecode(ticket) };
  const [, basic] = BASIC_SCHEME.exec(header) ?? [];
  if (basic !== undefined) return parseBasic(basic);
  const [, bearer] = BEARER_SCHEME.exec(header) ?? [];
  if (bearer !== undefined) return { kind: 'bearer', jwt: bearer };
  return { kind: 'malformed', why: 'unknown authorization scheme' };
}

/** `<userid>!<tokenid>=<secret>` (PVE) or `<userid>=<secret>` (Corral's): split at the last `=`. */
export function parseToken(value: string): Credentials {
  const split = value.lastIndexOf('=');
  if (split <= 0 || split === value.length - 1) return { kind: 'malformed', why: 'an API token is <userid>!<tokenid>=<secret>' };
  const id = value.slice(0, split);
  const secret = value.slice(split + 1);
  const bang = id.indexOf('!');
  if (bang === -1) return { kind: 'token', userid: id, tokenid: null, secret };
  return { kind: 'token', userid: id.slice(0, bang), tokenid: id.slice(bang + 1), secret };
}

function parseBasic(encoded: string): Credentials {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { kind: 'malformed', why: 'Basic credentials are base64 of <user>@<realm>:<password>' };
  return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return percentDecode(part.slice(eq + 1).trim());
  }
  return undefined;
}

// The cookie may arrive raw or percent-encoded.
function percentDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
