import { Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { realmOf } from '../access-params.js';
import { fullTokenid } from '../full-tokenid.js';
import { UserRow } from '../entities/user.entity.js';
import type { AccessSnapshot, UserState } from '../state/access-snapshot.js';
import { AccessState } from '../state/access-state.js';
import { BearerTokens } from './bearer-tokens.js';
import type { Credentials } from '../../http/credentials.js';
import { HashingSlots } from './hashing-slots.js';
import { LoginThrottle } from './login-throttle.js';
import { verifyPassword } from './passwords.js';
import type { AuthMethod, Principal } from '../../http/principal.js';
import { ticketTime, verifyCsrfToken, verifyTicket } from './tickets.js';
import { TicketKeys } from './ticket-keys.js';

/** What authentication reads of a request. */
export interface AuthAttempt {
  readonly credentials: Credentials;
  readonly method: string;
  readonly address: string;
  readonly csrfToken: string | undefined;
}

// A successful password check is remembered this long (Basic credentials on every request would cost a scrypt each).
const PASSWORD_CACHE_MS = 60_000;
const PASSWORD_CACHE_SIZE = 10_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A 401 whose body says nothing more; the reason phrase may say which check failed. */
export function authenticationFailed(reason?: string): ApiError {
  return new ApiError('AUTHENTICATION_FAILED', 'authentication failed', reason ? { reason: `authentication failed - ${reason}` } : {});
}

function tooManyFailures(message: string, retryAfterS: number): ApiError {
  return new ApiError('TOO_MANY_FAILURES', message, { headers: { 'retry-after': String(retryAfterS) } });
}

/**
 * Resolves a request's credentials to a principal, or fails with 401. Every failure looks the same
 * in the body (an unknown user, a wrong password, a disabled or expired account, a bad token);
 * failed passwords and token secrets are throttled per claimed user and client address.
 */
@Injectable()
export class Authenticator {
  private readonly throttle = new LoginThrottle();
  private readonly hashing = new HashingSlots();
  private readonly passwordCache = new Map<string, number>();

  constructor(
    private readonly state: AccessState,
    private readonly keys: TicketKeys,
    private readonly bearer: BearerTokens,
  ) {}

  async authenticate(attempt: AuthAttempt): Promise<Principal> {
    const c = attempt.credentials;
    switch (c.kind) {
      case 'none':
        throw authenticationFailed('no credentials (ticket, API token, Basic or bearer)');
      case 'malformed':
        throw authenticationFailed(c.why);
      case 'ticket':
        return this.byTicket(c.ticket, attempt);
      case 'token':
        return this.byToken(c, attempt.address);
      case 'basic': {
        const user = await this.checkPassword(c.username, c.password, attempt.address);
        return principalOf(await this.state.current(), user.userid, 'basic');
      }
      case 'bearer':
        return this.byBearer(c.jwt);
    }
  }

  /**
   * Checks a user's password (POST /access/ticket, Basic auth): throttled per user and address,
   * 401 for every kind of failure, and the scrypt verification cached briefly, keyed by the stored
   * hash so that a new password takes effect at once.
   */
  async checkPassword(userid: string, password: string, address: string): Promise<UserState> {
    const retryAfter = this.throttle.retryAfter(userid, address, nowS());
    if (retryAfter > 0)
      throw tooManyFailures(`too many failed logins for '${userid}' from this address: try again in ${retryAfter} s`, retryAfter);
    const user = activeUser(await this.state.current(), userid);
    if (user && (this.cachedPassword(user, password) || (await this.hashing.run(() => verifyPassword(user.passwordHash, password))))) {
      this.throttle.succeeded(userid, address);
      this.rememberPassword(user, password);
      return user;
    }
    if (!user) await this.hashing.run(() => verifyPassword(null, password));
    this.throttle.failed(userid, address, nowS());
    throw authenticationFailed();
  }

  /** The user a valid ticket names (POST /access/ticket renews with it). */
  async ticketUser(ticket: string): Promise<UserState | null> {
    let userid = verifyTicket(ticket, nowS(), await this.keys.verificationKeys());
    const issued = ticketTime(ticket);
    if (userid === null && issued !== null && (await this.keys.reloadAfterMiss(issued)))
      userid = verifyTicket(ticket, nowS(), await this.keys.verificationKeys());
    return userid === null ? null : activeUser(await this.state.current(), userid);
  }

  private async byTicket(ticket: string, attempt: AuthAttempt): Promise<Principal> {
    const user = await this.ticketUser(ticket);
    // npm's proxmox-api logs in again only on this phrase.
    if (!user) throw new ApiError('AUTHENTICATION_FAILED', 'authentication failed', { reason: 'permission denied - invalid PVE ticket' });
    if (!SAFE_METHODS.has(attempt.method)) {
      const valid =
        attempt.csrfToken !== undefined && verifyCsrfToken(attempt.csrfToken, user.userid, nowS(), await this.keys.verificationKeys());
      if (!valid)
        throw new ApiError('AUTHENTICATION_FAILED', 'authentication failed', { reason: 'Permission denied - invalid csrf token' });
    }
    return principalOf(await this.state.current(), user.userid, 'ticket');
  }

  private async byToken(c: Extract<Credentials, { kind: 'token' }>, address: string): Promise<Principal> {
    const claimed = c.tokenid === null ? c.userid : fullTokenid(c.userid, c.tokenid);
    // Counted apart from the user's password failures: bad tokens do not lock its logins.
    const throttleKey = `token ${claimed}`;
    const access = await this.state.current();
    const hash = sha256(c.secret);
    const token = c.tokenid === null ? access.tokensBySecretHash.get(hash) : access.tokens.get(claimed);
    const valid =
      token !== undefined &&
      token.userid === c.userid &&
      sameHex(token.secretHash, hash) &&
      (token.expire === 0 || token.expire > nowS()) &&
      activeUser(access, token.userid) !== null;
    // The right secret is never refused: a token's holder cannot be locked out by whoever shares its address.
    if (!valid) {
      const retryAfter = this.throttle.retryAfter(throttleKey, address, nowS());
      if (retryAfter > 0)
        throw tooManyFailures(`too many failed attempts for '${claimed}' from this address: try again in ${retryAfter} s`, retryAfter);
      this.throttle.failed(throttleKey, address, nowS());
      throw authenticationFailed();
    }
    return principalOf(access, token.userid, 'token', token);
  }

  private async byBearer(jwt: string): Promise<Principal> {
    const userid = await this.bearer.userOf(jwt);
    if (userid === null) throw authenticationFailed(this.bearer.realm ? 'invalid bearer token' : 'no OAuth issuer is configured');
    let access = await this.state.current();
    const realm = access.realms.get(realmOf(userid));
    if (!access.users.has(userid) && realm?.type === 'oidc' && realm.autocreate) {
      await this.state.write((db) =>
        db.createQueryBuilder().insert().into(UserRow).values({ userid, realm: realm.realm }).orIgnore().execute(),
      );
      access = await this.state.current();
    }
    if (!activeUser(access, userid)) throw authenticationFailed();
    return principalOf(access, userid, 'bearer');
  }

  private cachedPassword(user: UserState, password: string): boolean {
    const until = this.passwordCache.get(passwordKey(user, password));
    return until !== undefined && until > Date.now();
  }

  private rememberPassword(user: UserState, password: string): void {
    const key = passwordKey(user, password);
    this.passwordCache.delete(key);
    this.passwordCache.set(key, Date.now() + PASSWORD_CACHE_MS);
    const [oldest] = this.passwordCache.keys();
    if (this.passwordCache.size > PASSWORD_CACHE_SIZE && oldest !== undefined) this.passwordCache.delete(oldest);
  }
}

/** A user who may authenticate now: exists, enabled, not expired, in a known realm. */
export function activeUser(access: AccessSnapshot, userid: string): UserState | null {
  const user = access.users.get(userid);
  if (!user || !user.enable || (user.expire !== 0 && user.expire <= nowS()) || !access.realms.has(user.realm)) return null;
  return user;
}

export function principalOf(
  access: AccessSnapshot,
  userid: string,
  method: AuthMethod,
  token?: { fullTokenid: string; privsep: boolean },
): Principal {
  const groups = access.users.get(userid)?.groups ?? [];
  return {
    userid,
    tokenid: token?.fullTokenid ?? null,
    method,
    subject: token
      ? { kind: 'token', userid, groups, tokenid: token.fullTokenid, privsep: token.privsep }
      : { kind: 'user', userid, groups },
  };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Compares two hashes in constant time. */
export function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

// The password cache key holds the stored hash: a changed password misses the cache at once.
function passwordKey(user: UserState, password: string): string {
  return sha256(`${user.userid}\0${user.passwordHash ?? ''}\0${password}`);
}

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}
