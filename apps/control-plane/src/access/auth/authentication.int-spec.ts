import type { ApiResponse } from '@corral/testing';
import { Controller } from '@nestjs/common';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { addToken, addUser, basic, grant, ROOT, write } from '../../../test-support/access-fixture.js';
import { startTestApp, TEST_ROOT_PASSWORD, type TestApp } from '../../../test-support/test-app.js';
import { Endpoint, endpoint } from '../../http/endpoint.js';
import { TicketModule } from '../ticket/ticket.module.js';
import { hashPassword } from './passwords.js';
import { Caller, type Principal } from '../../http/principal.js';
import { signTicket } from './tickets.js';

const whoami = endpoint({
  method: 'GET',
  path: '/fixture/whoami',
  summary: 'the caller',
  parameters: z.object({}),
  returns: z.unknown(),
  permission: { kind: 'authenticated' },
});
const postWhoami = endpoint({ ...whoami, method: 'POST' });
const audit = endpoint({ ...whoami, path: '/fixture/audit', permission: { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] } });

@Controller()
class FixtureController {
  @Endpoint(whoami)
  get(@Caller() caller: Principal) {
    return { userid: caller.userid, tokenid: caller.tokenid, method: caller.method };
  }

  @Endpoint(postWhoami)
  post(@Caller() caller: Principal) {
    return { userid: caller.userid, method: caller.method };
  }

  @Endpoint(audit)
  audit() {
    return 'ok';
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface TicketData {
  ticket: string;
  CSRFPreventionToken: string;
  username: string;
  cap: Record<string, Record<string, number>>;
  clustername?: string;
}

describe('authentication', () => {
  let t: TestApp;
  let issuer: {
    server: Server;
    url: string;
    sign: (
      claims: Record<string, unknown>,
      options?: { audience?: string; expiresIn?: string | null; notBefore?: string },
    ) => Promise<string>;
  };

  const login = async (username: string, password: string): Promise<ApiResponse> =>
    t.api.send('/access/ticket', { method: 'POST', headers: FORM, body: new URLSearchParams({ username, password }).toString() });
  const ticketOf = async (username = 'root@pam', password = TEST_ROOT_PASSWORD) =>
    (await login(username, password)).json<{ data: TicketData }>().data;
  /** Changes the access tables behind the API's back, the one way the API itself does. */
  const sql = (query: string, params: unknown[] = []) => write(t, (db) => db.query(query, params));

  beforeAll(async () => {
    issuer = await startIssuer();
    t = await startTestApp({
      imports: [TicketModule],
      controllers: [FixtureController],
      env: {
        CORRAL_OIDC_ISSUER: issuer.url,
        CORRAL_OIDC_AUDIENCE: 'corral',
        CORRAL_OIDC_JWKS_URL: `${issuer.url}/jwks`,
        CORRAL_OIDC_AUTOCREATE: '1',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    issuer.server.close();
  });

  describe('tickets', () => {
    it("log in with PVE's form and return PVE's ticket, CSRF token, cap and cluster name, and set the cookie", async () => {
      const res = await login('root@pam', TEST_ROOT_PASSWORD);
      expect(res.status).toBe(200);
      const data = res.json<{ data: TicketData }>().data;
      expect(data.username).toBe('root@pam');
      expect(data.ticket).toMatch(/^PVE:root@pam:[0-9A-F]{8}::[A-Za-z0-9+/]+=*$/);
      expect(data.CSRFPreventionToken).toMatch(/^[0-9A-F]{8}:[A-Za-z0-9+/]{43}$/);
      expect(data.clustername).toBe('corral');
      expect(data.cap['vms']?.['VM.Allocate']).toBe(1);
      expect(res.headers['set-cookie']?.[0]).toMatch(
        /^PVEAuthCookie=PVE%3Aroot%40pam%3A.*; Path=\/; Max-Age=7200; Secure; HttpOnly; SameSite=Lax$/,
      );
    });

    it('clear the cookie on DELETE, the logout of browsers, whose cookie is HttpOnly', async () => {
      const res = await t.api.send('/access/ticket', { method: 'DELETE' });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ data: null });
      expect(res.headers['set-cookie']?.[0]).toBe('PVEAuthCookie=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax');
    });

    it('take the realm apart, or Basic credentials', async () => {
      const res = await t.api.send('/access/ticket', {
        method: 'POST',
        headers: FORM,
        body: `username=root&realm=pam&password=${TEST_ROOT_PASSWORD}`,
      });
      expect(res.json<{ data: TicketData }>().data.username).toBe('root@pam');
      const spec = await t.api.send('/access/ticket', { method: 'POST', headers: ROOT });
      expect(spec.status).toBe(200);
      expect(spec.json<{ data: TicketData }>().data.ticket).toMatch(/^PVE:root@pam:/);
    });

    it('authenticate as the cookie or the Authorization header; other methods need the CSRF token', async () => {
      const { ticket, CSRFPreventionToken } = await ticketOf();
      const cookie = { cookie: `PVEAuthCookie=${encodeURIComponent(ticket)}` };
      expect((await t.api.send('/fixture/whoami', { headers: cookie })).json()).toEqual({
        data: { userid: 'root@pam', tokenid: null, method: 'ticket' },
      });
      expect((await t.api.send('/fixture/whoami', { headers: { authorization: `PVEAuthCookie=${ticket}` } })).status).toBe(200);
      const noCsrf = await t.api.send('/fixture/whoami', { method: 'POST', headers: cookie });
      expect([noCsrf.status, noCsrf.reason]).toEqual([401, 'Permission denied - invalid csrf token']);
      expect(noCsrf.json()).toEqual({ data: null, errors: [{ code: 401, message: 'authentication failed' }] });
      const withCsrf = await t.api.send('/fixture/whoami', { method: 'POST', headers: { ...cookie, CSRFPreventionToken } });
      expect(withCsrf.status).toBe(200);
    });

    it('are renewed by posting the ticket as the password', async () => {
      const { ticket } = await ticketOf();
      const renewed = await login('root@pam', ticket);
      expect(renewed.status).toBe(200);
      expect(renewed.json<{ data: TicketData }>().data.ticket).toMatch(/^PVE:root@pam:/);
      expect((await login('root@pam', `${ticket}x`)).status).toBe(401);
    });

    it('expire after two hours, and a forged or altered one is refused with the phrase npm clients re-login on', async () => {
      const [key] = (await t.dataSource.query('SELECT id, secret FROM ticket_keys ORDER BY id DESC LIMIT 1')) as {
        id: number;
        secret: Buffer;
      }[];
      const now = Math.floor(Date.now() / 1000);
      if (!key) throw new Error('no ticket key after a login');
      const valid = signTicket('root@pam', now - 7000, key);
      const expired = signTicket('root@pam', now - 7300, key);
      expect((await t.api.send('/fixture/whoami', { headers: { cookie: `PVEAuthCookie=${valid}` } })).status).toBe(200);
      const res = await t.api.send('/fixture/whoami', { headers: { cookie: `PVEAuthCookie=${expired}` } });
      expect([res.status, res.reason]).toEqual([401, 'permission denied - invalid PVE ticket']);
      const forged = await t.api.send('/fixture/whoami', { headers: { cookie: `PVEAuthCookie=${valid.replace('root@pam', 'evil@pve')}` } });
      expect(forged.status).toBe(401);
    });

    it('survive one key rotation and not two', async () => {
      const old = (await ticketOf()).ticket;
      await t.dataSource.query(`UPDATE ticket_keys SET created_at = created_at - interval '25 hours'`);
      const next = (await ticketOf()).ticket;
      const keys = (await t.dataSource.query('SELECT id FROM ticket_keys ORDER BY id')) as { id: number }[];
      expect(keys).toHaveLength(2);
      for (const ticket of [old, next])
        expect((await t.api.send('/fixture/whoami', { headers: { cookie: `PVEAuthCookie=${ticket}` } })).status).toBe(200);
      await t.dataSource.query(`UPDATE ticket_keys SET created_at = created_at - interval '25 hours'`);
      await ticketOf();
      expect((await t.api.send('/fixture/whoami', { headers: { cookie: `PVEAuthCookie=${old}` } })).status).toBe(401);
      expect((await t.api.send('/fixture/whoami', { headers: { cookie: `PVEAuthCookie=${next}` } })).status).toBe(200);
    });

    it('refuse a wrong password, an unknown user and a disabled one alike', async () => {
      await addUser(t, 'carol@pve', { password: 'carol-password' });
      expect((await login('carol@pve', 'carol-password')).status).toBe(200);
      await sql(`UPDATE users SET enable = false WHERE userid = 'carol@pve'`);
      const bodies = await Promise.all([
        login('root@pam', 'wrong-password'),
        login('nobody@pve', 'whatever1'),
        login('carol@pve', 'carol-password'),
      ]);
      for (const res of bodies) {
        expect(res.status).toBe(401);
        expect(res.json()).toEqual({ data: null, errors: [{ code: 401, message: 'authentication failed' }] });
      }
    });

    it('throttle failed logins per user and address, without touching other users', async () => {
      await addUser(t, 'dave@pve', { password: 'dave-password' });
      for (let i = 0; i < 5; i++) expect((await login('dave@pve', 'wrong')).status).toBe(401);
      const throttled = await login('dave@pve', 'dave-password');
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      expect((await login('root@pam', TEST_ROOT_PASSWORD)).status).toBe(200);
    });
  });

  describe('password checks under a flood of made-up logins', () => {
    it('run a few at once, refuse the overflow with 429 and Retry-After, and keep serving real users', async () => {
      const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => login(`made-up-${i}@pve`, 'guess')));
      const statuses = new Set(flood.map((res) => res.status));
      expect([...statuses].sort()).toEqual([401, 429]);
      const refused = flood.find((res) => res.status === 429);
      expect(refused?.headers['retry-after']).toBe('1');
      expect(refused?.json()).toEqual({ data: null, errors: [{ code: 429, message: 'too many logins at once: try again shortly' }] });
      expect((await login('root@pam', TEST_ROOT_PASSWORD)).status).toBe(200);
    });
  });

  describe('Basic authentication', () => {
    it('works on every endpoint, and a password change takes effect at once', async () => {
      await addUser(t, 'erin@pve', { password: 'erin-password' });
      expect((await t.api.send('/fixture/whoami', { headers: basic('erin@pve', 'erin-password') })).json()).toEqual({
        data: { userid: 'erin@pve', tokenid: null, method: 'basic' },
      });
      await sql('UPDATE users SET password_hash = $1 WHERE userid = $2', [await hashPassword('erin-new-password'), 'erin@pve']);
      expect((await t.api.send('/fixture/whoami', { headers: basic('erin@pve', 'erin-password') })).status).toBe(401);
      expect((await t.api.send('/fixture/whoami', { headers: basic('erin@pve', 'erin-new-password') })).status).toBe(200);
    });

    it('needs no CSRF token', async () => {
      expect((await t.api.send('/fixture/whoami', { method: 'POST', headers: ROOT })).status).toBe(200);
    });
  });

  describe('API tokens', () => {
    const secret = '5f0e8c2a-1d3b-4e6f-9a7b-0c1d2e3f4a5b';
    beforeAll(async () => {
      await addToken(t, 'root@pam', 'ci', { privsep: false, secret });
    });

    it.each([
      ['PVE header', { authorization: `PVEAPIToken=root@pam!ci=${secret}` }, ''],
      ['SVCAPIToken header', { authorization: `SVCAPIToken=root@pam!ci=${secret}` }, ''],
      ["Corral's <userid>=<secret>", { authorization: `SVCAPIToken=root@pam=${secret}` }, ''],
      ['query parameter', {}, `token=${encodeURIComponent(`PVEAPIToken=root@pam!ci=${secret}`)}`],
    ])('authenticate with the %s, without CSRF', async (_form, headers, query) => {
      const res = await t.api.send('/fixture/whoami', { method: 'POST', headers, query });
      expect(res.json()).toEqual({ data: { userid: 'root@pam', method: 'token' } });
    });

    it('refuse a wrong secret, an unknown token and an expired one', async () => {
      await addToken(t, 'root@pam', 'old', { privsep: true, secret: 'old-secret', expire: Math.floor(Date.now() / 1000) - 1 });
      for (const authorization of [
        `PVEAPIToken=root@pam!ci=${secret}x`,
        `PVEAPIToken=root@pam!nope=${secret}`,
        'PVEAPIToken=root@pam!old=old-secret',
        `PVEAPIToken=carol@pve!ci=${secret}`,
      ]) {
        const res = await t.api.send('/fixture/whoami', { headers: { authorization } });
        expect([res.status, res.json()]).toEqual([401, { data: null, errors: [{ code: 401, message: 'authentication failed' }] }]);
      }
    });

    it('answer a wrong secret 429 with Retry-After after five failures from an address, and never refuse the right one', async () => {
      await addToken(t, 'root@pam', 'shared', { privsep: false, secret: 'shared-secret' });
      const as = (tokenSecret: string) =>
        t.api.send('/fixture/whoami', { headers: { authorization: `PVEAPIToken=root@pam!shared=${tokenSecret}` } });
      for (let i = 0; i < 5; i++) expect((await as('guessed')).status).toBe(401);
      const throttled = await as('guessed');
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      expect((await as('shared-secret')).status).toBe(200);
    });

    it('cannot obtain a ticket', async () => {
      const res = await t.api.send('/access/ticket', { method: 'POST', headers: { authorization: `PVEAPIToken=root@pam!ci=${secret}` } });
      expect(res.status).toBe(400);
    });
  });

  describe('OAuth 2.0 bearer tokens', () => {
    it('authenticate as <claim>@<realm>, creating the user when the realm says so', async () => {
      const jwt = await issuer.sign({ sub: 'frank' });
      expect((await t.api.send('/fixture/whoami', { headers: { authorization: `Bearer ${jwt}` } })).json()).toEqual({
        data: { userid: 'frank@oidc', tokenid: null, method: 'bearer' },
      });
      expect(await t.dataSource.query(`SELECT realm FROM users WHERE userid = 'frank@oidc'`)).toEqual([{ realm: 'oidc' }]);
    });

    it('refuse a wrong audience, an expired token, one that never expires, one not yet valid, and a disabled user', async () => {
      await sql(`INSERT INTO users (userid, realm, enable) VALUES ('gina@oidc', 'oidc', false)`);
      const tokens = await Promise.all([
        issuer.sign({ sub: 'frank' }, { audience: 'other' }),
        issuer.sign({ sub: 'frank' }, { expiresIn: '-1m' }),
        issuer.sign({ sub: 'frank' }, { expiresIn: null }),
        issuer.sign({ sub: 'frank' }, { notBefore: '10m' }),
        issuer.sign({ sub: 'gina' }),
      ]);
      for (const jwt of tokens)
        expect((await t.api.send('/fixture/whoami', { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(401);
    });
  });

  describe('permissions', () => {
    it('answer 401 without credentials and 403 without the privilege, with PVE detail in the reason phrase', async () => {
      const none = await t.api.get('/fixture/audit');
      expect([none.status, none.json()]).toEqual([401, { data: null, errors: [{ code: 401, message: 'authentication failed' }] }]);
      await addUser(t, 'hank@pve', { password: 'hank-password' });
      const denied = await t.api.send('/fixture/audit', { headers: basic('hank@pve', 'hank-password') });
      expect([denied.status, denied.reason]).toEqual([403, 'permission denied - Permission check failed (/, Sys.Audit)']);
      expect(denied.json()).toEqual({ data: null, errors: [{ code: 403, message: 'permission denied' }] });
      await grant(t, { path: '/', type: 'user', ugid: 'hank@pve', roleid: 'PVEAuditor' });
      expect((await t.api.send('/fixture/audit', { headers: basic('hank@pve', 'hank-password') })).status).toBe(200);
    });
  });
});

async function startIssuer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test', alg: 'ES256' };
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.url === '/jwks' ? { keys: [jwk] } : {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** A JWT of the issuer's; `expiresIn: null` leaves out `exp`. */
  const sign = (claims: Record<string, unknown>, options: { audience?: string; expiresIn?: string | null; notBefore?: string } = {}) => {
    let jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'test' })
      .setIssuer(url)
      .setAudience(options.audience ?? 'corral')
      .setIssuedAt();
    if (options.expiresIn !== null) jwt = jwt.setExpirationTime(options.expiresIn ?? '5m');
    if (options.notBefore) jwt = jwt.setNotBefore(options.notBefore);
    return jwt.sign(privateKey);
  };
  return { server, url, sign };
}
