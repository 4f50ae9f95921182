import { call, setCredentials } from './client';

/** What a login gives: the user, the ticket (the cookie's value, kept to renew it) and its CSRF token. */
export interface Session {
  readonly username: string;
  readonly ticket: string;
  readonly csrf: string;
  /** When the ticket was issued or last renewed (ms). */
  readonly since: number;
}

interface TicketAnswer {
  readonly username: string;
  readonly ticket: string;
  readonly CSRFPreventionToken: string;
}

const STORAGE_KEY = 'corral.session';
/** Tickets last two hours; the console renews its ticket every 15 minutes, as PVE's interface does. */
export const RENEW_MS = 15 * 60 * 1000;
const TICKET_LIFETIME_MS = 2 * 60 * 60 * 1000;

/** The session of this browser tab, if its ticket is still valid. */
export function storedSession(): Session | null {
  const text = sessionStorage.getItem(STORAGE_KEY);
  if (!text) return null;
  const session = JSON.parse(text) as Session;
  return Date.now() - session.since < TICKET_LIFETIME_MS ? session : null;
}

function keep(answer: TicketAnswer): Session {
  const session = { username: answer.username, ticket: answer.ticket, csrf: answer.CSRFPreventionToken, since: Date.now() };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  return session;
}

/** `POST /access/ticket`: the control plane answers with the ticket and sets it as the cookie every later call sends. */
export async function login(username: string, password: string, realm: string): Promise<Session> {
  return keep(await call<TicketAnswer>('POST', '/access/ticket', { username, password, realm }));
}

/** A current ticket, given as the password, gives a fresh one (PVE's renewal). */
export async function renew(session: Session): Promise<Session> {
  return keep(await call<TicketAnswer>('POST', '/access/ticket', { username: session.username, password: session.ticket }));
}

/** Forgets the ticket here and has the control plane clear its cookie. */
export async function logout(): Promise<void> {
  sessionStorage.removeItem(STORAGE_KEY);
  setCredentials(null, () => undefined);
  await call('DELETE', '/access/ticket').catch(() => undefined);
}
