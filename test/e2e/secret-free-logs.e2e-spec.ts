import { waitFor, type ApiResponse, type ControlPlaneProcess } from '@corral/testing';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';

const ROOT_PASSWORD = 'secret-logs-root-password-7f3a';
const USER_PASSWORD = 'secret-logs-user-password-c91e';
const WRONG_PASSWORD = 'secret-logs-wrong-password-55d0';
const WRONG_TOKEN_SECRET = '0b6a4f0e-6a43-4b49-9d8f-5ec7e75ec7e7';
const URL_TOKEN = 'secret-logs-url-token-1b2c';
const HEADER_VALUE = 'secret-logs-header-value-3d4e';
const SIGNING_KEY = 'secret-logs-signing-key-5f6a';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;

const b64 = (text: string) => Buffer.from(text).toString('base64');

/**
 * The control plane's failure paths with known secrets in play: whatever it logs (its stdout and
 * stderr, the access log, the task logs) carries none of them, nor the hashes it stores of them.
 */
describe('logs without secrets', () => {
  let cp: ControlPlaneProcess;
  let db: pg.Client;
  beforeAll(async () => {
    const url = await testDatabaseUrl();
    cp = await startOnTestDatabase({ databaseUrl: url, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_LOG_LEVEL: 'debug' } });
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }, PATIENCE_MS);
  afterAll(async () => {
    await db?.end();
    await cp?.stop();
  });

  const root = { authorization: `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}` };
  const send = (method: string, path: string, form: Record<string, string | string[]> = {}, headers: Record<string, string> = root) => {
    const pairs = Object.entries(form).flatMap(([key, value]) => [value].flat().map((item): [string, string] => [key, item]));
    const body = new URLSearchParams(pairs).toString();
    return cp.api.send(path, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
  };
  const ok = (res: ApiResponse) => {
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
    return res.json<{ data: unknown }>().data;
  };

  it('logs none of the passwords, token secrets, webhook URL tokens, header values and signing keys, nor their hashes', async () => {
    // A failed login, and a user created twice (the second a unique violation).
    expect((await send('POST', '/access/ticket', { username: 'root@pam', password: WRONG_PASSWORD }, {})).status).toBe(401);
    ok(await send('POST', '/access/users', { userid: 'alice@pve', password: USER_PASSWORD }));
    expect((await send('POST', '/access/users', { userid: 'alice@pve', password: USER_PASSWORD })).status).toBe(409);
    expect((await send('POST', '/access/ticket', { username: 'alice@pve', password: WRONG_PASSWORD }, {})).status).toBe(401);

    // A token, used once with its secret and once with a wrong one.
    const token = ok(await send('POST', '/access/users/root@pam/token/ci', { privsep: '0' })) as { value: string };
    expect((await cp.api.send('/version', { headers: { authorization: `PVEAPIToken=root@pam!ci=${token.value}` } })).status).toBe(200);
    expect((await send('GET', '/access/users', {}, { authorization: `PVEAPIToken=root@pam!ci=${WRONG_TOKEN_SECRET}` })).status).toBe(401);
    // A token in the query string, as PVE's clients may send it.
    await cp.api.get('/access/users', `token=${encodeURIComponent(`PVEAPIToken=root@pam!ci=${token.value}`)}`);

    // A webhook whose delivery fails: nothing listens on port 9.
    ok(
      await send('POST', '/cluster/notifications/endpoints/webhook', {
        name: 'leaky',
        url: `http://127.0.0.1:9/hook?token=${URL_TOKEN}`,
        'allow-local': '1',
        header: `name=X-Auth,value=${b64(HEADER_VALUE)}`,
        secret: `name=signing,value=${b64(SIGNING_KEY)}`,
      }),
    );
    ok(await send('POST', '/cluster/notifications/matchers', { name: 'all', target: 'leaky' }));
    const { rows } = await db.query<{ seq: string }>(
      `INSERT INTO events (event, node, timestamp) VALUES ('node-up', 'pve1', now()) RETURNING seq`,
    );
    await db.query('SELECT pg_notify($1, $2)', ['corral_events', rows[0]?.seq]);
    await waitFor(
      async () => {
        const deliveries = ok(await send('GET', '/cluster/notifications/endpoints/webhook/leaky/deliveries')) as {
          'last-error'?: string;
        }[];
        return deliveries.some((delivery) => delivery['last-error'] !== undefined);
      },
      { timeoutMs: PATIENCE_MS, what: 'a failed delivery attempt' },
    );

    const hashes = await db.query<{ hash: string }>(
      `SELECT password_hash AS hash FROM users WHERE password_hash IS NOT NULL UNION ALL SELECT secret_hash FROM api_tokens`,
    );
    const secrets = [
      ROOT_PASSWORD,
      USER_PASSWORD,
      WRONG_PASSWORD,
      token.value,
      WRONG_TOKEN_SECRET,
      URL_TOKEN,
      HEADER_VALUE,
      b64(HEADER_VALUE),
      SIGNING_KEY,
      b64(SIGNING_KEY),
      ...hashes.rows.map((row) => row.hash),
    ];
    expect(hashes.rows.length).toBeGreaterThanOrEqual(3);

    // The logs are written in batches: wait for the last request's access-log line.
    const accessLog = join(cp.dataDir, 'access.log');
    await waitFor(async () => (await readFile(accessLog, 'utf8')).includes('/deliveries'), {
      timeoutMs: PATIENCE_MS,
      what: 'the access log',
    });
    const taskLogs = await db.query<{ line: string }>('SELECT t AS line FROM task_logs');
    const logs = {
      output: cp.output.join('\n'),
      accessLog: await readFile(accessLog, 'utf8'),
      taskLogs: taskLogs.rows.map((row) => row.line).join('\n'),
    };
    // The logs read are the ones written: the failed login's request is in the access log.
    expect(logs.accessLog).toContain('/access/ticket');
    for (const [where, text] of Object.entries(logs)) {
      expect({ where, found: secrets.filter((secret) => text.includes(secret)) }).toEqual({ where, found: [] });
    }
  });
});
