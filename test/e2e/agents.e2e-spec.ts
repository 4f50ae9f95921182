import { AgentProcess, dropDatabase, testPostgres, waitFor, type ApiResponse, type ControlPlaneProcess } from '@corral/testing';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem, type, version } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';

const ROOT_PASSWORD = 'agents-e2e-root-password';
const asRoot = { authorization: `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}` };
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 30_000;
/** The control plane's own heartbeat window is 10 s; a killed agent's node is offline after it, checked with room to spare. */
const NODE_DOWN_PATIENCE_MS = 40_000;
/** What `corral agent join` says for a forged, expired or used token: the token is the problem (not some login). */
const REFUSED_TOKEN = /^corral: 401 .*the join token is invalid, expired or already used\n$/;

interface CreatedJoinToken {
  readonly id: string;
  readonly token: string;
  readonly expire: number;
  readonly fingerprint: string;
  readonly node?: string;
  readonly replace: 0 | 1;
}

interface NodeEntry {
  readonly node: string;
  readonly status: string;
  readonly maxmem?: number;
  readonly maxcpu?: number;
  readonly uptime?: number;
}

interface ClusterStatusEntry {
  readonly type: 'cluster' | 'node';
  readonly name: string;
  readonly [field: string]: unknown;
}

/** One simulated host: its own host root, and the config file `corral agent join` writes for it. */
interface TestHost {
  readonly root: string;
  readonly config: string;
  /** The os-release PRETTY_NAME under its root: node.status shows it only if the agent read this host root. */
  readonly osName: string;
}

const data = <T>(res: ApiResponse): T => {
  if (res.status !== 200) throw new Error(`${res.status} ${res.reason}: ${res.text}`);
  return res.json<{ data: T }>().data;
};

// Real agents (apps/agent, run by `corral agent join` and as `corral-agent`) joined to a real
// control plane with join tokens from the CLI, their liveness, and every way a join or an agent is refused.
describe('agents: joining, liveness and refusals', () => {
  let cp: ControlPlaneProcess;
  let db: pg.Client;
  let dir: string;
  let database: string | undefined;
  let url: string;
  let asAdmin: Record<string, string>;
  const started: AgentProcess[] = [];
  let agentA: AgentProcess;
  let agentB: AgentProcess;
  let hostA: TestHost;
  let hostB: TestHost;
  /** node-a's join token, spent by its join. */
  let usedToken: string;

  const track = (program: AgentProcess) => {
    started.push(program);
    return program;
  };

  /** A one-shot `corral` command as the admin; resolves once it exited. */
  const corral = async (...args: string[]) => {
    const run = track(AgentProcess.cli(args, asAdmin));
    await run.waitForExit(PATIENCE_MS);
    return run;
  };

  const createToken = async (...options: string[]): Promise<CreatedJoinToken> => {
    const created = await corral('cluster', 'join-token', 'create', ...options);
    if (created.exitStatus?.code !== 0)
      throw new Error(`join-token create exited with ${JSON.stringify(created.exitStatus)}: ${created.stderr}`);
    return JSON.parse(created.stdout) as CreatedJoinToken;
  };

  const makeHost = async (name: string): Promise<TestHost> => {
    const root = join(dir, name, 'root');
    const osName = `Corral Test Host ${name}`;
    await mkdir(join(root, 'etc/network'), { recursive: true });
    await writeFile(join(root, 'etc/resolv.conf'), `search ${name}.corral.test\nnameserver 192.0.2.53\n`);
    await writeFile(join(root, 'etc/network/interfaces'), 'auto lo\niface lo inet loopback\n');
    await writeFile(join(root, 'etc/os-release'), `PRETTY_NAME="${osName}"\nID=corral-test\n`);
    return { root, config: join(dir, name, 'etc/agent.json'), osName };
  };

  /** `corral agent join` with only PATH in its environment: the token is its only credential. */
  const joinAgent = (token: string, node: string, host: TestHost, { fingerprint = cp.fingerprint, start = true } = {}) =>
    track(
      AgentProcess.cli([
        'agent',
        'join',
        url,
        '--token',
        token,
        '--fingerprint',
        fingerprint,
        '--node',
        node,
        '--config',
        host.config,
        '--host-root',
        host.root,
        ...(start ? [] : ['--no-start']),
      ]),
    );

  const nodes = async () => data<NodeEntry[]>(await cp.api.send('/nodes', { headers: asRoot }));
  const clusterStatus = async () => data<ClusterStatusEntry[]>(await cp.api.send('/cluster/status', { headers: asRoot }));
  const nodeStatus = (node: string) => cp.api.send(`/nodes/${node}/status`, { headers: asRoot });
  const events = async (event: string, node: string) =>
    (
      await db.query<{ details: Record<string, unknown> }>(
        'SELECT "details" FROM "events" WHERE "event" = $1 AND "node" = $2 ORDER BY "seq"',
        [event, node],
      )
    ).rows.map((row) => row.details);

  /** Online in /nodes with an inventory the agent measured on this machine. */
  const onlineWithInventory = async (node: string) => {
    const entry = (await nodes()).find((candidate) => candidate.node === node);
    return entry?.status === 'online' && (entry.maxmem ?? 0) > 0 && (entry.uptime ?? 0) > 0;
  };
  const waitOnline = (node: string) =>
    waitFor(() => onlineWithInventory(node), { timeoutMs: PATIENCE_MS, what: `node ${node} online with its inventory`, intervalMs: 100 });
  const statusOf = async (node: string) => (await nodes()).find((candidate) => candidate.node === node)?.status;

  /** `corral agent join` that must be refused: --no-start, so that a wrong success ends too. */
  const refusedJoin = async (token: string, node: string, host: TestHost, fingerprint = cp.fingerprint) => {
    const attempt = joinAgent(token, node, host, { fingerprint, start: false });
    await attempt.waitForExit(PATIENCE_MS);
    return { exit: attempt.exitStatus, stdout: attempt.stdout, stderr: attempt.stderr };
  };
  const refusal = (stderr: RegExp | string) => ({
    exit: { code: 1, signal: null },
    stdout: '',
    stderr: typeof stderr === 'string' ? stderr : expect.stringMatching(stderr),
  });
  /** Nothing at all where the config was to go: no config, no temporary file left behind. */
  const nothingWritten = async (host: TestHost) => expect(await readdir(dirname(host.config)).catch(() => [])).toEqual([]);
  const pendingIds = async () => {
    const list = await corral('cluster', 'join-token', 'list');
    return (JSON.parse(list.stdout) as { id: string }[]).map((token) => token.id);
  };
  const writeConfig = async (host: TestHost, config: Record<string, string>) => {
    await mkdir(dirname(host.config), { recursive: true });
    await writeFile(host.config, JSON.stringify({ url, fingerprint: cp.fingerprint, hostRoot: host.root, ...config }), { mode: 0o600 });
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-agents-e2e-'));
    const databaseUrl = await testDatabaseUrl();
    database = new URL(databaseUrl).pathname.slice(1);
    cp = await startOnTestDatabase({ databaseUrl, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_LOCAL_AGENT: '0' } });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    url = `https://127.0.0.1:${cp.port}`;
    asAdmin = { CORRAL_URL: url, CORRAL_FINGERPRINT: cp.fingerprint, CORRAL_USER: 'root@pam', CORRAL_PASSWORD: ROOT_PASSWORD };
    [hostA, hostB] = await Promise.all([makeHost('a'), makeHost('b')]);
  });

  afterAll(async () => {
    // Every step runs even when one fails: no agent, control plane or directory outlives the file.
    const steps: (() => unknown)[] = [
      ...started.map((program) => () => program.kill()),
      () => cp?.stop(),
      () => cp && rm(cp.dataDir, { recursive: true, force: true }),
      () => db?.end(),
      () => database && dropDatabase(testPostgres(), database),
      () => dir && rm(dir, { recursive: true, force: true }),
    ];
    for (const step of steps)
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
  });

  it('joins two hosts with CLI join tokens; both come online with their measured inventory and answer for their node', async () => {
    const [tokenA, tokenB] = await Promise.all([createToken('--comment', 'node-a'), createToken()]);
    const shape = {
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      token: expect.stringMatching(/^[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/),
      expire: expect.any(Number),
      fingerprint: cp.fingerprint,
      replace: 0,
    };
    expect(tokenA).toEqual({ ...shape, comment: 'node-a' });
    expect(tokenB).toEqual(shape);
    for (const created of [tokenA, tokenB]) expect(created.expire).toBeGreaterThan(Date.now() / 1000);
    usedToken = tokenA.token;
    agentA = joinAgent(tokenA.token, 'node-a', hostA);
    agentB = joinAgent(tokenB.token, 'node-b', hostB);
    await Promise.all([waitOnline('node-a'), waitOnline('node-b')]);

    // The config each join wrote: the credential is there (mode 0600), and neither it nor the token is in any log.
    for (const [agent, host, node, token] of [
      [agentA, hostA, 'node-a', tokenA],
      [agentB, hostB, 'node-b', tokenB],
    ] as const) {
      expect(JSON.parse(agent.stdout)).toEqual({ node, url, config: host.config });
      const config = JSON.parse(await readFile(host.config, 'utf8')) as Record<string, string>;
      expect(config).toEqual({
        url,
        fingerprint: cp.fingerprint,
        node,
        credential: expect.stringMatching(/^\S{32,}$/),
        hostRoot: host.root,
      });
      expect((await stat(host.config)).mode & 0o777).toBe(0o600);
      for (const secret of [config['credential'] ?? '', token.token])
        expect([agent.stdout, agent.stderr, ...cp.output].filter((text) => text.includes(secret))).toEqual([]);
      expect(agent.logLines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'connected', node }));
    }

    const listed = await nodes();
    expect(listed.map((entry) => [entry.node, entry.status])).toEqual([
      ['node-a', 'online'],
      ['node-b', 'online'],
    ]);
    for (const entry of listed)
      expect(entry).toEqual(expect.objectContaining({ maxcpu: cpus().length, maxmem: totalmem(), uptime: expect.any(Number) }));

    const [cluster, ...members] = await clusterStatus();
    expect(cluster).toEqual({ type: 'cluster', id: 'cluster', name: 'corral', nodes: 2, quorate: true, version: 1 });
    expect(members).toEqual([
      expect.objectContaining({ type: 'node', name: 'node-a', status: 'online', online: 1, local: 1 }),
      expect.objectContaining({ type: 'node', name: 'node-b', status: 'online', online: 1, local: 1 }),
    ]);

    for (const [node, host] of [
      ['node-a', hostA],
      ['node-b', hostB],
    ] as const) {
      const status = data<{
        memory: { total: number };
        kversion: string;
        os: string;
        pveversion: string;
        cpuinfo: { cpus: number; user_hz: number };
        'boot-info': { mode: string };
        swap: { total: number; used: number; free: number };
        idle: number;
      }>(await nodeStatus(node));
      expect(status.memory.total).toBe(totalmem());
      expect(status.kversion).toBe(`${type()} ${release()} ${version()}`);
      expect(status.cpuinfo.cpus).toBe(cpus().length);
      // Read from this node's own host root, not from this machine's /etc.
      expect(status.os).toBe(host.osName);
      expect(status.pveversion).toMatch(/^pve-manager\/9\.\d+\.\d+\/[0-9a-f]{16}$/);
      expect(status['boot-info'].mode).toBe(existsSync('/sys/firmware/efi') ? 'efi' : 'legacy-bios');
      expect(status.cpuinfo.user_hz).toBe(100);
      expect(status.swap.used + status.swap.free).toBe(status.swap.total);
      expect(status.idle).toBe(0);
      expect(data(await cp.api.send(`/nodes/${node}/subscription`, { headers: asRoot }))).toEqual({
        status: 'notfound',
        message: expect.any(String),
        level: '',
      });
    }

    expect(await events('cluster-join', 'node-a')).toEqual([{ token: tokenA.id, rejoin: false }]);
    expect(await events('cluster-join', 'node-b')).toEqual([{ token: tokenB.id, rejoin: false }]);
  });

  it('answers every host endpoint of each node from its own agent and host root: DNS, network, disks, scan, apt, firewall and tasks', async () => {
    const send = (path: string, method = 'GET', form?: Record<string, string>) =>
      cp.api.send(path, {
        method,
        headers: { ...asRoot, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
    const taskEnd = async (node: string, upid: string) => {
      await waitFor(
        async () => data<{ status: string }>(await send(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`)).status === 'stopped',
        { timeoutMs: PATIENCE_MS, what: `task ${upid}` },
      );
      return data<{ exitstatus: string }>(await send(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`)).exitstatus;
    };
    for (const [node, host, letter] of [
      ['node-a', hostA, 'a'],
      ['node-b', hostB, 'b'],
    ] as const) {
      expect(data(await send(`/nodes/${node}/dns`))).toEqual({ search: `${letter}.corral.test`, dns1: '192.0.2.53' });
      expect(
        data(await send(`/nodes/${node}/dns`, 'PUT', { search: `lab.${letter}.corral.test`, dns1: '192.0.2.1', dns2: '2001:db8::1' })),
      ).toBeNull();
      expect(await readFile(join(host.root, 'etc/resolv.conf'), 'utf8')).toBe(
        `search lab.${letter}.corral.test\nnameserver 192.0.2.1\nnameserver 2001:db8::1\n`,
      );

      // A bridge goes to the pending file; PUT applies it (a host root that is not / reloads nothing).
      expect(
        data(await send(`/nodes/${node}/network`, 'POST', { iface: 'vmbr7', type: 'bridge', autostart: '1', cidr: '198.51.100.7/24' })),
      ).toBeNull();
      expect(await readFile(join(host.root, 'etc/network/interfaces.new'), 'utf8')).toContain('iface vmbr7 inet static');
      expect(data(await send(`/nodes/${node}/network/vmbr7`))).toEqual(
        expect.objectContaining({ iface: 'vmbr7', type: 'bridge', cidr: '198.51.100.7/24', exists: 0 }),
      );
      const apply = data<string>(await send(`/nodes/${node}/network`, 'PUT'));
      expect(apply).toMatch(new RegExp(`^UPID:${node}:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:srvreload:networking:root@pam:$`));
      expect(await taskEnd(node, apply)).toBe('OK');
      expect(await readFile(join(host.root, 'etc/network/interfaces'), 'utf8')).toContain('iface vmbr7 inet static');
      expect((await send(`/nodes/${node}/network`, 'POST', { iface: 'vmbr7', type: 'bridge' })).status).toBe(500);

      // This machine's real disks, storage and packages.
      expect(Array.isArray(data(await send(`/nodes/${node}/disks/list`)))).toBe(true);
      expect(data(await send(`/nodes/${node}/scan`))).toEqual({
        lvm: expect.any(Array),
        zfs: expect.any(Array),
        dir: expect.arrayContaining([expect.objectContaining({ path: expect.any(String), type: expect.any(String) })]),
      });
      expect(Array.isArray(data(await send(`/nodes/${node}/apt/update`)))).toBe(true);
      expect(data<{ upid: string }[]>(await send(`/nodes/${node}/tasks`)).map((task) => task.upid)).toContain(apply);

      // The firewall: kept by the control plane, rendered by the agent into its host root and checked with nft -c.
      expect(data(await send(`/nodes/${node}/firewall/aliases`, 'POST', { name: 'office', cidr: '192.0.2.0/24' }))).toBeNull();
      expect(
        data(
          await send(`/nodes/${node}/firewall/rules`, 'POST', {
            type: 'in',
            action: 'ACCEPT',
            macro: 'SSH',
            source: 'office',
            enable: '1',
          }),
        ),
      ).toBeNull();
      expect(data(await send(`/nodes/${node}/firewall/options`, 'PUT', { enable: '1' }))).toBeNull();
      expect(data(await send(`/nodes/${node}/firewall/rules`))).toEqual([
        expect.objectContaining({ pos: 0, type: 'in', action: 'ACCEPT', macro: 'SSH', source: 'office' }),
      ]);
      const rendered = await readFile(join(host.root, 'etc/corral/firewall.nft'), 'utf8');
      expect(rendered).toContain('table inet corral');
      expect(rendered).toContain('192.0.2.0/24');
      expect(rendered).toContain('22');
    }
  });

  it('a killed agent: its node goes offline with node-down, its status answers 503; restarted with corral-agent it is back without a new join', async () => {
    await agentB.kill();
    await waitFor(async () => (await statusOf('node-b')) === 'offline', {
      timeoutMs: NODE_DOWN_PATIENCE_MS,
      what: 'node-b offline after its agent was killed',
      intervalMs: 250,
    });

    expect(await statusOf('node-a')).toBe('online');
    const members = (await clusterStatus()).slice(1);
    expect(members).toEqual([
      expect.objectContaining({ name: 'node-a', status: 'online', online: 1 }),
      expect.objectContaining({ name: 'node-b', status: 'offline', online: 0, local: 0 }),
    ]);
    const unreachable = await nodeStatus('node-b');
    expect(unreachable.status).toBe(503);
    expect(unreachable.reason).toContain("node 'node-b'");
    expect(unreachable.json<{ errors: { message: string }[] }>().errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining("node 'node-b'") }),
    ]);
    expect(await events('node-down', 'node-b')).toHaveLength(1);
    expect(await events('node-down', 'node-a')).toEqual([]);

    agentB = track(AgentProcess.agent(hostB.config));
    await waitOnline('node-b');
    expect(data<{ os: string }>(await nodeStatus('node-b')).os).toBe(hostB.osName);
    expect(await events('cluster-join', 'node-b')).toHaveLength(1);
    expect(await events('node-down', 'node-b')).toHaveLength(1);
  });

  it('a used, an expired or a forged join token is refused with 401 saying so: exit 1, nothing written, no node joined', async () => {
    const expired = await createToken('--ttl', '60');
    await db.query('UPDATE "join_tokens" SET "expire" = floor(extract(epoch FROM now())) - 1 WHERE "id" = $1', [expired.id]);
    const tokens = { used: usedToken, expired: expired.token, forged: `0123456789abcdef.${'A'.repeat(43)}` };
    const hosts = await Promise.all(Object.keys(tokens).map((name) => makeHost(name)));
    const results = await Promise.all(Object.values(tokens).map((token, index) => refusedJoin(token, 'node-c', hosts[index] as TestHost)));
    const byName = Object.fromEntries(Object.keys(tokens).map((name, index) => [name, results[index]]));
    expect(byName).toEqual({ used: refusal(/^corral: 401 /), expired: refusal(/^corral: 401 /), forged: refusal(/^corral: 401 /) });
    for (const host of hosts) await nothingWritten(host);
    expect((await nodes()).map((entry) => entry.node)).toEqual(['node-a', 'node-b']);
    expect(await events('cluster-join', 'node-c')).toEqual([]);
    // The host's operator learns that the token is the problem, not that some login failed.
    expect(byName).toEqual({ used: refusal(REFUSED_TOKEN), expired: refusal(REFUSED_TOKEN), forged: refusal(REFUSED_TOKEN) });
  });

  it('a wrong --fingerprint ends the join before the token is sent: exit 1 naming the fingerprint, nothing written, the token unspent', async () => {
    const created = await createToken();
    const wrong = cp.fingerprint.replace(/^../, (byte) => (byte === '00' ? '01' : '00'));
    const host = await makeHost('pinned');
    expect(await refusedJoin(created.token, 'node-c', host, wrong)).toEqual(
      refusal(
        `corral: TLS: the certificate of 127.0.0.1:${cp.port} has the SHA-256 fingerprint ${cp.fingerprint}, not --fingerprint's ${wrong}: nothing was sent\n`,
      ),
    );
    await nothingWritten(host);
    expect(await pendingIds()).toContain(created.id);
  });

  it('a token cannot take over an existing node without consent (409) nor join another node than its own (403): exit 1, nothing written', async () => {
    const [any, forNodeD] = await Promise.all([createToken(), createToken('--node', 'node-d')]);
    const [duplicate, elsewhere] = await Promise.all([makeHost('duplicate'), makeHost('elsewhere')]);
    expect(await refusedJoin(any.token, 'node-a', duplicate)).toEqual(refusal(/^corral: 409 node 'node-a' already exists.*replace=1/));
    const wrongNode = await refusedJoin(forNodeD.token, 'node-c', elsewhere);
    expect(wrongNode).toEqual(refusal(/^corral: 403 /));
    await nothingWritten(duplicate);
    await nothingWritten(elsewhere);
    // A refused join changes nothing: the tokens stay usable, node-a keeps its agent.
    expect(await pendingIds()).toEqual(expect.arrayContaining([any.id, forNodeD.id]));
    expect(await events('cluster-join', 'node-a')).toHaveLength(1);
    expect(agentA.exitStatus).toBeNull();
    expect(await statusOf('node-a')).toBe('online');
    // The operator learns which node the token is for.
    expect(wrongNode.stderr).toMatch(/^corral: 403 .*'node-d'/);
  });

  it('with a --node node-a --replace token another host takes node-a over: the old agent is refused and exits 1, the new one answers for node-a', async () => {
    const created = await createToken('--node', 'node-a', '--replace');
    expect(created).toEqual(expect.objectContaining({ node: 'node-a', replace: 1 }));
    const oldAgent = agentA;
    const oldCredential = (JSON.parse(await readFile(hostA.config, 'utf8')) as { credential: string }).credential;
    hostA = await makeHost('a2');
    agentA = joinAgent(created.token, 'node-a', hostA);

    expect(await oldAgent.waitForExit(PATIENCE_MS)).toEqual({ code: 1, signal: null });
    expect(oldAgent.logLines).toContainEqual(
      expect.objectContaining({ level: 'error', msg: expect.stringMatching(/refused this node's credential.*HTTP 401/) }),
    );
    await waitFor(() => agentA.logLines.some((line) => line['msg'] === 'connected'), {
      timeoutMs: PATIENCE_MS,
      what: 'the new node-a agent to connect',
    });
    await waitOnline('node-a');
    // node.status reads the new agent's host root.
    expect(data<{ os: string }>(await nodeStatus('node-a')).os).toBe(hostA.osName);
    expect((JSON.parse(await readFile(hostA.config, 'utf8')) as { credential: string }).credential).not.toBe(oldCredential);
    expect(await events('cluster-join', 'node-a')).toEqual([
      { token: usedToken.split('.')[0], rejoin: false },
      { token: created.id, rejoin: true },
    ]);
  });

  it('an agent with a wrong credential, or with the credential of another node, is refused at the upgrade and exits 1 saying so', async () => {
    const nodeBCredential = (JSON.parse(await readFile(hostB.config, 'utf8')) as { credential: string }).credential;
    const [wrong, borrowed] = await Promise.all([makeHost('wrong-credential'), makeHost('borrowed-credential')]);
    await writeConfig(wrong, { node: 'node-b', credential: 'not-the-credential-of-node-b' });
    await writeConfig(borrowed, { node: 'node-a', credential: nodeBCredential });
    const agents = [track(AgentProcess.agent(wrong.config)), track(AgentProcess.agent(borrowed.config))];
    for (const agent of agents) {
      expect(await agent.waitForExit(PATIENCE_MS)).toEqual({ code: 1, signal: null });
      expect(agent.logLines).toContainEqual(
        expect.objectContaining({ level: 'error', msg: expect.stringMatching(/refused this node's credential.*HTTP 401/) }),
      );
      expect(agent.stderr).not.toContain('not-the-credential-of-node-b');
      expect(agent.stderr).not.toContain(nodeBCredential);
    }
    // The real agents keep their nodes.
    expect(await statusOf('node-a')).toBe('online');
    expect(await statusOf('node-b')).toBe('online');
  });

  it('SIGTERM drains an agent, sent to corral-agent or to the corral agent join that runs it: both exit 0', async () => {
    agentB.signal('SIGTERM');
    agentA.signal('SIGTERM');
    for (const agent of [agentB, agentA]) {
      expect(await agent.waitForExit(PATIENCE_MS)).toEqual({ code: 0, signal: null });
      expect(agent.logLines).toContainEqual(expect.objectContaining({ msg: 'agent stopped', exitCode: 0 }));
    }
  });
});
