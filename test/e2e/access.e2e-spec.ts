import { HttpsClient, waitFor, type ApiResponse, type ControlPlaneProcess } from '@corral/testing';
import { createHmac } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';

const ROOT_PASSWORD = 'e2e-root-password';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const asRoot = basic('root@pam', ROOT_PASSWORD);
const data = <T>(res: ApiResponse): T => {
  if (res.status !== 200) throw new Error(`${res.status} ${res.reason}: ${res.text}`);
  return res.json<{ data: T }>().data;
};
const nowS = () => Math.floor(Date.now() / 1000);

interface Ticket {
  ticket: string;
  CSRFPreventionToken: string;
}

// Every way of authenticating, against two control-plane replicas sharing one database: what one
// of them issues or changes holds on the other at once.
describe('authentication across control-plane replicas', () => {
  let a: ControlPlaneProcess;
  let b: ControlPlaneProcess;
  let db: pg.Client;
  let issuer: Awaited<ReturnType<typeof startIssuer>>;

  const login = (cp: ControlPlaneProcess, username: string, password: string) =>
    cp.api.send('/access/ticket', { method: 'POST', headers: FORM, body: form({ username, password }) });
  const cookie = (ticket: string) => ({ cookie: `PVEAuthCookie=${encodeURIComponent(ticket)}` });

  beforeAll(async () => {
    issuer = await startIssuer();
    const databaseUrl = await testDatabaseUrl();
    const env = {
      CORRAL_ROOT_PASSWORD: ROOT_PASSWORD,
      CORRAL_OIDC_ISSUER: issuer.url,
      CORRAL_OIDC_AUDIENCE: 'corral',
      CORRAL_OIDC_AUTOCREATE: '1',
    };
    a = await startOnTestDatabase({ databaseUrl, env });
    b = await startOnTestDatabase({ databaseUrl, env });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), db?.end()]);
    issuer?.server.close();
  });

  it('a ticket from one replica works on the other, with CSRF on changes, and renews there', async () => {
    const { ticket, CSRFPreventionToken } = data<Ticket>(await login(a, 'root@pam', ROOT_PASSWORD));
    expect(data<unknown[]>(await b.api.send('/access/users', { headers: cookie(ticket) }))).toContainEqual(
      expect.objectContaining({ userid: 'root@pam' }),
    );
    const create = { method: 'POST', headers: { ...FORM, ...cookie(ticket) }, body: form({ groupid: 'ops' }) };
    const refused = await b.api.send('/access/groups', create);
    expect([refused.status, refused.reason]).toEqual([401, 'Permission denied - invalid csrf token']);
    expect((await b.api.send('/access/groups', { ...create, headers: { ...create.headers, CSRFPreventionToken } })).status).toBe(200);
    const renewed = data<Ticket>(await login(b, 'root@pam', ticket));
    expect(renewed.ticket).toMatch(/^PVE:root@pam:[0-9A-F]{8}::/);
    expect((await a.api.send('/access/users', { headers: cookie(renewed.ticket) })).status).toBe(200);
  });

  it('refuses an expired ticket with the phrase clients re-login on', async () => {
    const [key] = (await db.query<{ secret: Buffer }>('SELECT secret FROM ticket_keys ORDER BY id DESC LIMIT 1')).rows;
    if (!key) throw new Error('no signing key after a login');
    const plain = `PVE:root@pam:${(nowS() - 7201).toString(16).toUpperCase()}`;
    const expired = `${plain}::${createHmac('sha256', key.secret).update(`ticket\0${plain}`).digest('base64')}`;
    const res = await b.api.send('/access/users', { headers: cookie(expired) });
    expect([res.status, res.reason]).toEqual([401, 'permission denied - invalid PVE ticket']);
  });

  it('rotates the signing key after a day; tickets of the previous key stay valid on both replicas', async () => {
    const old = data<Ticket>(await login(a, 'root@pam', ROOT_PASSWORD)).ticket;
    await db.query(`UPDATE ticket_keys SET created_at = created_at - interval '25 hours'`);
    const fresh = data<Ticket>(await login(a, 'root@pam', ROOT_PASSWORD)).ticket;
    expect((await db.query('SELECT id FROM ticket_keys')).rowCount).toBe(2);
    for (const cp of [a, b])
      for (const ticket of [old, fresh]) expect((await cp.api.send('/access/users', { headers: cookie(ticket) })).status).toBe(200);
  });

  it('API tokens: the secret is shown once, works on both replicas, and regenerating or deleting revokes it at once', async () => {
    const created = data<{ 'full-tokenid': string; value: string; info: { privsep: number } }>(
      await a.api.send('/access/users/root@pam/token/e2e', { method: 'POST', headers: { ...FORM, ...asRoot }, body: form({ privsep: 0 }) }),
    );
    expect(created['full-tokenid']).toBe('root@pam!e2e');
    expect(created.value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(JSON.stringify(data(await a.api.send('/access/users/root@pam/token/e2e', { headers: asRoot })))).not.toContain(created.value);
    const token = (secret: string) => ({ authorization: `PVEAPIToken=root@pam!e2e=${secret}` });
    expect((await b.api.send('/access/users', { headers: token(created.value) })).status).toBe(200);
    expect((await b.api.send('/access/users', { headers: { authorization: `SVCAPIToken=root@pam=${created.value}` } })).status).toBe(200);

    const regenerated = data<{ value: string }>(
      await a.api.send('/access/users/root@pam/token/e2e', {
        method: 'PUT',
        headers: { ...FORM, ...asRoot },
        body: form({ regenerate: 1 }),
      }),
    );
    await waitFor(async () => (await b.api.send('/access/users', { headers: token(created.value) })).status === 401, {
      timeoutMs: 2000,
      what: 'the old secret to be refused',
    });
    expect((await b.api.send('/access/users', { headers: token(regenerated.value) })).status).toBe(200);

    expect((await a.api.send('/access/users/root@pam/token/e2e', { method: 'DELETE', headers: asRoot })).status).toBe(200);
    await waitFor(async () => (await b.api.send('/access/users', { headers: token(regenerated.value) })).status === 401, {
      timeoutMs: 2000,
      what: 'the deleted token to be refused',
    });
  });

  it('an API token stops working when it expires', async () => {
    // Expiry is whole seconds; a few of them leave a slow machine time to see the token work first.
    const expire = nowS() + 5;
    const { value } = data<{ value: string }>(
      await a.api.send('/access/users/root@pam/token/brief', {
        method: 'POST',
        headers: { ...FORM, ...asRoot },
        body: form({ privsep: 0, expire }),
      }),
    );
    const headers = { authorization: `PVEAPIToken=root@pam!brief=${value}` };
    await waitFor(async () => (await b.api.send('/access/users', { headers })).status === 200, {
      timeoutMs: 4000,
      what: 'the new token on B',
    });
    await waitFor(async () => (await b.api.send('/access/users', { headers })).status === 401, {
      timeoutMs: 10_000,
      what: 'the token to expire',
    });
    expect(nowS()).toBeGreaterThanOrEqual(expire);
  });

  it('Basic auth: a password change or a disabled account takes effect on the other replica at once', async () => {
    await a.api.send('/access/users', {
      method: 'POST',
      headers: { ...FORM, ...asRoot },
      body: form({ userid: 'ivy@pve', password: 'ivy-password-1' }),
    });
    // B learns of the new user when A's change notification arrives, milliseconds after the commit.
    await waitFor(async () => (await b.api.send('/access/users', { headers: basic('ivy@pve', 'ivy-password-1') })).status === 200, {
      timeoutMs: 2000,
      what: 'the new user on B',
    });
    expect(
      (
        await a.api.send('/access/password', {
          method: 'PUT',
          headers: { ...FORM, ...asRoot },
          body: form({ userid: 'ivy@pve', password: 'ivy-password-2' }),
        })
      ).status,
    ).toBe(200);
    await waitFor(async () => (await b.api.send('/access/users', { headers: basic('ivy@pve', 'ivy-password-1') })).status === 401, {
      timeoutMs: 2000,
      what: 'the old password to be refused',
    });
    expect((await b.api.send('/access/users', { headers: basic('ivy@pve', 'ivy-password-2') })).status).toBe(200);
    await a.api.send('/access/users/ivy@pve', { method: 'PUT', headers: { ...FORM, ...asRoot }, body: form({ enable: 0 }) });
    await waitFor(async () => (await b.api.send('/access/users', { headers: basic('ivy@pve', 'ivy-password-2') })).status === 401, {
      timeoutMs: 2000,
      what: 'the disabled user to be refused',
    });
  });

  it('OAuth bearer tokens from the configured issuer authenticate, creating the user in the oidc realm', async () => {
    const res = await a.api.send('/access/permissions', { headers: { authorization: `Bearer ${await issuer.sign({ sub: 'jules' })}` } });
    expect(res.status).toBe(200);
    expect((await db.query(`SELECT realm FROM users WHERE userid = 'jules@oidc'`)).rows).toEqual([{ realm: 'oidc' }]);
    const wrong = await a.api.send('/access/permissions', {
      headers: { authorization: `Bearer ${await issuer.sign({ sub: 'jules' }, 'someone-else')}` },
    });
    expect(wrong.status).toBe(401);
  });

  it('throttles failed logins per user and address, not the same user from another address', async () => {
    await a.api.send('/access/users', {
      method: 'POST',
      headers: { ...FORM, ...asRoot },
      body: form({ userid: 'kim@pve', password: 'kim-password' }),
    });
    for (let i = 0; i < 5; i++) expect((await login(a, 'kim@pve', 'wrong-password')).status).toBe(401);
    const throttled = await login(a, 'kim@pve', 'kim-password');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    const certificate = await readFile(join(a.dataDir, 'tls/corral.crt'), 'utf8');
    const otherAddress = new HttpsClient(`https://[::1]:${a.port}/api2/json`, certificate);
    try {
      const res = await otherAddress.send('/access/ticket', {
        method: 'POST',
        headers: FORM,
        body: form({ username: 'kim@pve', password: 'kim-password' }),
      });
      expect(res.status).toBe(200);
    } finally {
      otherAddress.close();
    }
  });
});

describe('the first start', () => {
  it('creates root@pam with a generated password, printed once and kept in <data dir>/root-password (0600)', async () => {
    const databaseUrl = await testDatabaseUrl();
    const first = await startOnTestDatabase({ databaseUrl });
    const file = join(first.dataDir, 'root-password');
    const password = (await readFile(file, 'utf8')).trim();
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(first.output.filter((line) => line.includes(password))).toEqual([expect.stringMatching(/^root@pam password \(shown once/)]);
    expect((await login(first, password)).status).toBe(200);
    await first.stop();

    const again = await startOnTestDatabase({ databaseUrl, dataDir: first.dataDir });
    try {
      expect(again.output.some((line) => line.includes(password))).toBe(false);
      expect((await login(again, password)).status).toBe(200);
    } finally {
      await again.stop();
    }
  });

  function login(cp: ControlPlaneProcess, password: string) {
    return cp.api.send('/access/ticket', { method: 'POST', headers: FORM, body: form({ username: 'root@pam', password }) });
  }
});

async function startIssuer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'e2e', alg: 'ES256' };
  let url = '';
  // Discovery as a real issuer serves it: the control plane finds the keys through it.
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') return void res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }));
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: Record<string, unknown>, audience = 'corral') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'e2e' })
      .setIssuer(url)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  return { server, url, sign };
}
