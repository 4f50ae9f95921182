import { UsageError } from '../command-line/usage-error.js';
import type { Auth } from '../environment/environment.js';
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { ApiFailure } from './api-failure.js';

/** Credentials ready to send: a password has been traded for a ticket. */
export type Session = Exclude<Auth, { kind: 'password' }>;

/** The session for `auth`; with a password that means logging in first (POST /access/ticket). */
export async function openSession(client: ApiClient, auth: Auth): Promise<Session> {
  if (auth.kind !== 'password') return auth;
  const data = await client
    .send({ method: 'POST', path: '/access/ticket', params: { username: auth.username, password: auth.password } }, {})
    .catch((error: unknown) => {
      throw error instanceof ApiFailure
        ? new ApiFailure(
            error.status,
            error.messages.map((message) => `logging in as ${auth.username}: ${message}`),
          )
        : error;
    });
  const { ticket, CSRFPreventionToken } = (data ?? {}) as { ticket?: unknown; CSRFPreventionToken?: unknown };
  if (typeof ticket !== 'string' || typeof CSRFPreventionToken !== 'string')
    throw new ApiFailure(200, [`logging in as ${auth.username}: the answer has no ticket`]);
  return { kind: 'ticket', ticket, csrfToken: CSRFPreventionToken };
}

/** The headers that carry the session on one call: a ticket needs its CSRF token on changes, a token never. */
export function credentialHeaders(session: Session, method: ApiCall['method']): Record<string, string> {
  switch (session.kind) {
    case 'none':
      return {};
    case 'token':
      return { authorization: `PVEAPIToken=${session.token}` };
    case 'ticket': {
      const cookie = { cookie: `PVEAuthCookie=${encodeURIComponent(session.ticket)}` };
      if (method === 'GET') return cookie;
      if (session.csrfToken === undefined) throw new UsageError('CORRAL_CSRF_TOKEN is needed with CORRAL_TICKET to change anything');
      return { ...cookie, CSRFPreventionToken: session.csrfToken };
    }
  }
}
