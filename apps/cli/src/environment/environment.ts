import { parseFingerprint } from '@corral/pinned-tls';
import { DEFAULT_URL, httpsUrl } from '../command-line/option-values.js';
import { UsageError } from '../command-line/usage-error.js';

/** How the command authenticates, chosen from the environment. */
export type Auth =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'ticket'; readonly ticket: string; readonly csrfToken: string | undefined }
  | { readonly kind: 'password'; readonly username: string; readonly password: string };

export interface Settings {
  /** The control plane: requests go to `<url>/api2/json/...`. */
  readonly url: URL;
  readonly auth: Auth;
  /** The certificate's SHA-256 fingerprint to pin, as `AA:BB:...`; unset: normal verification. */
  readonly fingerprint: string | undefined;
}

/** Every variable the command reads, for its help and the README. */
export const ENVIRONMENT: readonly (readonly [name: string, meaning: string])[] = [
  ['CORRAL_URL', 'the control plane (default https://127.0.0.1:8006)'],
  ['CORRAL_TOKEN', 'an API token, user@realm!tokenid=secret (sent as PVEAPIToken)'],
  ['CORRAL_TICKET', 'a ticket from POST /access/ticket'],
  ['CORRAL_CSRF_TOKEN', "the ticket's CSRFPreventionToken, needed with CORRAL_TICKET to change anything"],
  ['CORRAL_USER', 'a user, user@realm, to log in as with CORRAL_PASSWORD (never printed)'],
  ['CORRAL_PASSWORD', "CORRAL_USER's password"],
  [
    'CORRAL_FINGERPRINT',
    "the control plane's SHA-256 certificate fingerprint (AA:BB:...) as it prints at start: trusts exactly that certificate",
  ],
  ['NODE_EXTRA_CA_CERTS', 'without CORRAL_FINGERPRINT: a PEM file of further CAs to trust (Node.js)'],
];

const TOKEN = /^[^\s@!=]+@[^\s@!=]+(?:![^\s=]+)?=\S+$/;
const AUTH_VARIABLES = ['CORRAL_TOKEN', 'CORRAL_TICKET', 'CORRAL_USER'] as const;

/** The settings from the environment, read once; a bad or contradictory value is a UsageError naming the variable, never echoing a secret. */
export function readEnvironment(env: Readonly<Record<string, string | undefined>>): Settings {
  const value = (name: string) => env[name] || undefined;
  return Object.freeze({
    url: httpsUrl('CORRAL_URL', value('CORRAL_URL') ?? DEFAULT_URL),
    auth: auth(value),
    fingerprint: fingerprint(value('CORRAL_FINGERPRINT')),
  });
}

function auth(value: (name: string) => string | undefined): Auth {
  const set = AUTH_VARIABLES.filter((name) => value(name) !== undefined);
  if (set.length > 1) throw new UsageError(`set one way to authenticate, not ${set.join(' and ')}`);
  const [token, ticket, csrfToken, username, password] = [
    'CORRAL_TOKEN',
    'CORRAL_TICKET',
    'CORRAL_CSRF_TOKEN',
    'CORRAL_USER',
    'CORRAL_PASSWORD',
  ].map(value);
  if (csrfToken !== undefined && ticket === undefined) throw new UsageError('CORRAL_CSRF_TOKEN goes with CORRAL_TICKET');
  if ((username === undefined) !== (password === undefined)) throw new UsageError('CORRAL_USER and CORRAL_PASSWORD go together');
  if (token !== undefined) {
    if (!TOKEN.test(token)) throw new UsageError('CORRAL_TOKEN must look like user@realm!tokenid=secret');
    return { kind: 'token', token };
  }
  if (ticket !== undefined) return { kind: 'ticket', ticket, csrfToken };
  if (username !== undefined && password !== undefined) return { kind: 'password', username, password };
  return { kind: 'none' };
}

function fingerprint(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const parsed = parseFingerprint(text);
  if (parsed === undefined) throw new UsageError('CORRAL_FINGERPRINT must be a SHA-256 fingerprint: 32 hex bytes, AA:BB:...');
  return parsed;
}
