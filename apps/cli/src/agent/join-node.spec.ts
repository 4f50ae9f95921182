import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedIdentity } from '@corral/testing';
import { run } from '../run.js';

interface Received {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** A control plane's join endpoint over real HTTPS with a self-signed certificate: `good` joins, `used` is refused, pve9 exists. */
async function joinServer() {
  const identity = await selfSignedIdentity();
  const received: Received[] = [];
  const server: Server = createServer({ key: identity.key, cert: identity.cert }, async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    received.push({ method: request.method, url: request.url, contentType: request.headers['content-type'], body });
    const { token, node } = JSON.parse(body) as { token: string; node: string };
    const answer = (status: number, message: string, data: unknown = null) => {
      response.writeHead(status, message, { 'content-type': 'application/json' });
      response.end(JSON.stringify(status === 200 ? { data } : { data: null, errors: [{ code: status, message }] }));
    };
    if (token !== 'good') return answer(401, 'invalid or used join token');
    if (node === 'pve9') return answer(409, "node 'pve9' already exists");
    // pve6's control plane has a second replica; pve7's has one, the URL joined through.
    const urls =
      node === 'pve6' ? [`https://${request.headers.host}`, 'https://cp2.example:8006', 'not a URL'] : [`https://${request.headers.host}`];
    answer(200, 'OK', { node, credential: `credential-of-${node}`, urls });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fingerprint: identity.fingerprint,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function runCli(argv: string[], agentMain = '/nonexistent/agent-main.js') {
  const output = { out: '', err: '' };
  const code = await run(argv, {}, { out: (text) => void (output.out += text), err: (text) => void (output.err += text) }, () => agentMain);
  return { code, ...output };
}

describe('corral agent join against a control plane', () => {
  let server: Awaited<ReturnType<typeof joinServer>>;
  let dir: string;
  beforeAll(async () => (server = await joinServer()));
  afterAll(() => server.close());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-join-'));
    server.received.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const join_ = (token: string, node: string, ...more: string[]) => [
    'agent',
    'join',
    server.url,
    '--token',
    token,
    '--fingerprint',
    server.fingerprint,
    '--node',
    node,
    '--config',
    join(dir, 'etc/corral/agent.json'),
    ...more,
  ];

  it('trades the token for the credential with a JSON POST and writes the config 0600 in a new 0700 directory', async () => {
    const result = await runCli(join_('good', 'pve7', '--host-root', join(dir, 'host'), '--no-start'));
    const config = join(dir, 'etc/corral/agent.json');
    expect(result).toEqual({
      code: 0,
      out: `${JSON.stringify({ node: 'pve7', url: server.url, config }, null, 2)}\n`,
      err: expect.stringContaining(
        `corral: joined ${server.url} as node 'pve7'; the agent's config and credential are in ${config} (mode 0600)\n`,
      ),
    });
    expect(server.received).toEqual([
      { method: 'POST', url: '/api2/json/cluster/join', contentType: 'application/json', body: '{"token":"good","node":"pve7"}' },
    ]);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({
      url: server.url,
      fingerprint: server.fingerprint,
      node: 'pve7',
      credential: 'credential-of-pve7',
      hostRoot: join(dir, 'host'),
    });
    expect((await stat(config)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'etc/corral'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, 'etc/corral'))).toEqual(['agent.json']);
  });

  it("writes every replica the control plane names after the URL joined through, in the agent's order", async () => {
    expect((await runCli(join_('good', 'pve6', '--no-start'))).code).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'etc/corral/agent.json'), 'utf8')) as { url: unknown };
    expect(written.url).toEqual([server.url, 'https://cp2.example:8006']);
  });

  it('refuses a server with another certificate before sending the token, and writes nothing', async () => {
    const wrong = server.fingerprint.replace(/^../, (byte) => (byte === '00' ? '01' : '00'));
    const argv = join_('good', 'pve7', '--no-start');
    argv[argv.indexOf('--fingerprint') + 1] = wrong;
    expect(await runCli(argv)).toEqual({
      code: 1,
      out: '',
      err: `corral: TLS: the certificate of ${new URL(server.url).host} has the SHA-256 fingerprint ${server.fingerprint}, not --fingerprint's ${wrong}: nothing was sent\n`,
    });
    expect(server.received).toEqual([]);
    expect(await readdir(join(dir, 'etc/corral'))).toEqual([]);
  });

  it.each([
    ['used', 'pve7', 'corral: 401 invalid or used join token\n'],
    ['good', 'pve9', "corral: 409 node 'pve9' already exists\n"],
  ])('exits 1 with the API error when the control plane refuses (%s token, node %s), leaving no file', async (token, node, err) => {
    expect(await runCli(join_(token, node, '--no-start'))).toEqual({ code: 1, out: '', err });
    expect(await readdir(join(dir, 'etc/corral'))).toEqual([]);
  });

  it('then runs the agent with the config it wrote, ending with its exit code', async () => {
    const fakeAgent = join(dir, 'fake-agent.mjs');
    await writeFile(
      fakeAgent,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(dir, 'argv.json'))}, JSON.stringify(process.argv.slice(2)));\nprocess.exit(3);\n`,
    );
    const result = await runCli(join_('good', 'pve7'), fakeAgent);
    expect(result.code).toBe(3);
    expect(result.err).toContain('corral: running the agent in the foreground');
    expect(JSON.parse(await readFile(join(dir, 'argv.json'), 'utf8'))).toEqual(['--config', join(dir, 'etc/corral/agent.json')]);
  });
});

describe('corral agent install', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'corral-install-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes corral-agent.service running node with the agent and its config, and tells how to start it', async () => {
    const config = join(dir, 'agent.json');
    await writeFile(config, '{}');
    const result = await runCli(['agent', 'install', '--config', config, '--unit-dir', join(dir, 'units')], '/opt/corral 1/agent/main.js');
    const unit = join(dir, 'units/corral-agent.service');
    expect(result).toEqual({
      code: 0,
      out: `${JSON.stringify({ unit, config }, null, 2)}\n`,
      err: `corral: wrote ${unit}; start the agent now and at every boot with: systemctl daemon-reload && systemctl enable --now corral-agent\n`,
    });
    const text = await readFile(unit, 'utf8');
    expect(text).toContain(`\nExecStart=${process.execPath} "/opt/corral 1/agent/main.js" --config ${config}\n`);
    for (const line of [
      'Type=simple',
      'Restart=always',
      'RestartSec=2',
      'KillMode=process',
      'After=network-online.target',
      'WantedBy=multi-user.target',
    ])
      expect(text).toContain(`\n${line}\n`);
    expect((await stat(unit)).mode & 0o777).toBe(0o644);
  });

  it('refuses without a config: the host has not joined', async () => {
    const config = join(dir, 'missing.json');
    expect(await runCli(['agent', 'install', '--config', config, '--unit-dir', dir])).toEqual({
      code: 1,
      out: '',
      err: `corral: no agent config at ${config}: join this host first with 'corral agent join <url> --token T --fingerprint F'\n`,
    });
    expect(await readdir(dir)).toEqual([]);
  });
});
