import { waitFor, WebhookReceiver, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startOnTestDatabase } from '../support/control-plane.js';

const CLI = resolve('apps/cli/dist/main.js');
const ROOT_PASSWORD = 'cli-e2e-root-password';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface CreatedToken {
  readonly 'full-tokenid': string;
  readonly info: { readonly privsep: number; readonly expire: number; readonly comment?: string };
  readonly value: string;
}

/** The built `corral` as a user runs it, with only the environment given here (and PATH). */
function corral(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const json = <T>(result: CliResult): T => {
  if (result.code !== 0) throw new Error(`corral exited with ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
};

// The `corral` command against a started control plane over HTTPS, trusting it by fingerprint.
describe('corral, the command-line client', () => {
  let cp: ControlPlaneProcess;
  let server: Record<string, string>;
  let asRoot: Record<string, string>;
  const withToken = (token: string) => ({ ...server, CORRAL_TOKEN: token });

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx nx run cli:build)`);
    cp = await startOnTestDatabase({ env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    server = { CORRAL_URL: `https://127.0.0.1:${cp.port}`, CORRAL_FINGERPRINT: cp.fingerprint };
    asRoot = { ...server, CORRAL_USER: 'root@pam', CORRAL_PASSWORD: ROOT_PASSWORD };
  });
  afterAll(() => cp?.stop());

  it('creates a token (--expire, --privsep 0) whose secret works through CORRAL_TOKEN until it is regenerated or removed', async () => {
    const create = await corral(
      asRoot,
      'token',
      'create',
      'root@pam',
      'cli',
      '--expire',
      '2099-12-31',
      '--privsep',
      '0',
      '--comment',
      'from the CLI',
    );
    const created = json<CreatedToken>(create);
    // Valid through 2099-12-31 UTC: it expires when 2100 begins.
    expect(created).toEqual({
      'full-tokenid': 'root@pam!cli',
      info: expect.objectContaining({ privsep: 0, expire: Date.UTC(2100, 0, 1) / 1000, comment: 'from the CLI' }),
      value: expect.stringMatching(UUID),
    });
    expect(create.stderr).toMatch(/^corral: The secret \("value"\) is shown only this once/);

    const list = await corral(asRoot, 'token', 'list', 'root@pam');
    expect(json(list)).toEqual([expect.objectContaining({ tokenid: 'cli', privsep: 0, expire: Date.UTC(2100, 0, 1) / 1000 })]);
    expect(list.stdout + list.stderr).not.toContain(created.value);

    const users = await corral(withToken(`root@pam!cli=${created.value}`), 'get', '/access/users');
    expect(json(users)).toContainEqual(expect.objectContaining({ userid: 'root@pam' }));

    const regenerate = await corral(asRoot, 'token', 'regenerate', 'root@pam', 'cli');
    const { value } = json<{ value: string }>(regenerate);
    expect(value).toMatch(UUID);
    expect(value).not.toBe(created.value);
    expect(regenerate.stderr).toContain('shown only this once');
    expect(await corral(withToken(`root@pam!cli=${created.value}`), 'get', '/access/users')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'corral: 401 authentication failed\n',
    });
    expect((await corral(withToken(`root@pam!cli=${value}`), 'get', '/access/users')).code).toBe(0);

    expect(await corral(asRoot, 'token', 'remove', 'root@pam', 'cli')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(json(await corral(asRoot, 'token', 'list', 'root@pam'))).toEqual([]);
    const again = await corral(asRoot, 'token', 'remove', 'root@pam', 'cli');
    expect(again).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^corral: 404 .*does not exist\n$/) });
  });

  it('grants a role to a privsep token with acl set, which /access/permissions through that token shows, and acl remove takes back', async () => {
    const { value } = json<CreatedToken>(await corral(asRoot, 'token', 'create', 'root@pam', 'audit'));
    const asToken = withToken(`root@pam!audit=${value}`);
    const grant = ['/', '--role', 'PVEAuditor', '--token', 'root@pam!audit'];

    expect(await corral(asRoot, 'acl', 'set', ...grant)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(json(await corral(asRoot, 'acl', 'list'))).toContainEqual({
      path: '/',
      type: 'token',
      ugid: 'root@pam!audit',
      roleid: 'PVEAuditor',
      propagate: 1,
    });
    const granted = json<Record<string, Record<string, number>>>(await corral(asToken, 'get', '/access/permissions', '--path', '/'));
    // privsep=1: what the token's own ACL grants, not all of root's privileges.
    expect(granted['/']).toEqual(expect.objectContaining({ 'Sys.Audit': 1 }));
    expect(granted['/']).not.toHaveProperty('Sys.Modify');

    expect(await corral(asRoot, 'acl', 'remove', ...grant)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(json(await corral(asRoot, 'acl', 'list'))).not.toContainEqual(expect.objectContaining({ ugid: 'root@pam!audit' }));
    const revoked = json<Record<string, Record<string, number>>>(await corral(asToken, 'get', '/access/permissions', '--path', '/'));
    expect(revoked['/'] ?? {}).not.toHaveProperty('Sys.Audit');
    expect((await corral(asRoot, 'token', 'remove', 'root@pam', 'audit')).code).toBe(0);
  });

  it('reports a refused call with its status and the parameter, exit 1', async () => {
    const result = await corral(asRoot, 'acl', 'set', '/no/such/path', '--role', 'PVEAuditor', '--user', 'root@pam');
    expect(result).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^corral: 400 .*path/) });
  });

  it('a wrong password exits 1 with a 401, the password printed nowhere', async () => {
    const result = await corral({ ...asRoot, CORRAL_PASSWORD: 'not-the-root-password' }, 'get', '/access/users');
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'corral: 401 logging in as root@pam: authentication failed\n' });
  });

  it('trusts exactly the pinned certificate: another fingerprint fails with a clear TLS error before anything is sent', async () => {
    const wrong = cp.fingerprint.replace(/^../, (byte) => (byte === '00' ? '01' : '00'));
    const result = await corral({ ...server, CORRAL_FINGERPRINT: wrong }, 'get', '/version');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `corral: TLS: the certificate of 127.0.0.1:${cp.port} has the SHA-256 fingerprint ${cp.fingerprint}, not CORRAL_FINGERPRINT's ${wrong}: nothing was sent\n`,
    );
  });

  it('without a fingerprint verifies the certificate as usual: refused when self-signed, trusted through NODE_EXTRA_CA_CERTS', async () => {
    const unpinned = { CORRAL_URL: server['CORRAL_URL'] ?? '' };
    const refused = await corral(unpinned, 'get', '/version');
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^corral: TLS: 127\.0\.0\.1:\d+: self-signed certificate: set CORRAL_FINGERPRINT/),
    });
    const trusted = await corral({ ...unpinned, NODE_EXTRA_CA_CERTS: join(cp.dataDir, 'tls/corral.crt') }, 'get', '/version');
    expect(json(trusted)).toEqual(expect.objectContaining({ version: expect.stringMatching(/^9\./) }));
  });

  it('registers a webhook with events webhook add, which then gets the signed cluster-join of a node joining', async () => {
    const receiver = await WebhookReceiver.start();
    const dir = await mkdtemp(join(tmpdir(), 'corral-e2e-webhook-'));
    try {
      await writeFile(join(dir, 'key'), 'e2e-signing-key\n', { mode: 0o600 });
      const add = await corral(
        asRoot,
        'events',
        'webhook',
        'add',
        'joins',
        '--url',
        receiver.url(),
        '--event-type',
        'cluster-join',
        '--secret-file',
        join(dir, 'key'),
        '--allow-local',
      );
      expect(add).toEqual({ code: 0, stdout: '', stderr: expect.stringContaining("webhook 'joins' gets the events cluster-join, signed") });
      // An unknown kind leaves nothing behind.
      const refused = await corral(
        asRoot,
        'events',
        'webhook',
        'add',
        'typo',
        '--url',
        receiver.url(),
        '--event-type',
        'vm-strat',
        '--allow-local',
      );
      expect(refused).toEqual({ code: 1, stdout: '', stderr: expect.stringContaining("unknown event type 'vm-strat'") });
      expect(json<{ name: string }[]>(await corral(asRoot, 'get', '/cluster/notifications/targets')).map((target) => target.name)).toEqual([
        'joins',
      ]);

      const rootAuth = { authorization: `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}` };
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const { token } = (await cp.api.send('/cluster/join-tokens', { method: 'POST', headers: rootAuth })).json<{
        data: { token: string };
      }>().data;
      expect(
        (
          await cp.api.send('/cluster/join', {
            method: 'POST',
            headers: form,
            body: new URLSearchParams({ token, node: 'hooked' }).toString(),
          })
        ).status,
      ).toBe(200);

      await waitFor(() => receiver.requests.length === 1, { timeoutMs: 10_000, what: 'the cluster-join at the receiver' });
      const [request] = receiver.requests;
      expect(JSON.parse(request?.body ?? '')).toEqual({ event: 'cluster-join', timestamp: expect.any(String), node: 'hooked' });
      const timestamp = request?.headers['x-corral-timestamp'] ?? '';
      expect(request?.headers['x-corral-signature']).toBe(
        `sha256=${createHmac('sha256', 'e2e-signing-key')
          .update(`${timestamp}.${request?.body ?? ''}`)
          .digest('hex')}`,
      );
      await waitFor(
        async () =>
          json<{ state: string }[]>(await corral(asRoot, 'get', '/cluster/notifications/endpoints/webhook/joins/deliveries'))[0]?.state ===
          'delivered',
        {
          timeoutMs: 5000,
          what: 'the delivery recorded',
        },
      );
    } finally {
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 on a usage error', async () => {
    const result = await corral(asRoot, 'token', 'create', 'root@pam', 'late', '--expire', '2099-02-30');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "corral: token create: --expire: '2099-02-30' is not a date YYYY-MM-DD\nRun 'corral token create --help' for its usage.\n",
    });
    expect(json(await corral(asRoot, 'token', 'list', 'root@pam'))).toEqual([]);
  });
});
