import { AgentProcess, HttpsClient, processesUnder, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, startReplicas, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'lb-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;
const NODE = 'lb1';

/** docs/deploy/haproxy.cfg, listening on `port` of the loopback, with the replicas' addresses for its servers. */
async function haproxyConfig(port: number, replicas: readonly ControlPlaneProcess[]): Promise<string> {
  const documented = await readFile('docs/deploy/haproxy.cfg', 'utf8');
  const servers = replicas.map((replica, index) => `    server cp${index + 1} 127.0.0.1:${replica.port}`).join('\n');
  const config = documented.replace(/^ {4}bind :8006$/m, `    bind 127.0.0.1:${port}`).replace(/(^ {4}server .*\n?)+/m, `${servers}\n`);
  expect(config).not.toBe(documented);
  return config;
}

// Two replicas behind HAProxy with the configuration docs/deploy/haproxy.cfg shows: the API and an
// agent go through it, and when the replica holding the agent is killed, the agent is back through
// the load balancer (or a replica it learned) and its node answers again.
describe('replicas behind HAProxy (docs/deploy/haproxy.cfg)', () => {
  let root: string;
  let replicas: ControlPlaneProcess[];
  let haproxy: ChildProcess;
  let agent: AgentProcess;
  let db: pg.Client;
  let port: number;
  /** The API through the load balancer. */
  let lb: HttpsClient;
  const asRoot = { authorization: `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}` };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-lb-'));
    const databaseUrl = await testDatabaseUrl();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    replicas = await startReplicas(2, { root, databaseUrl, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    port = await freePort();
    const config = join(root, 'haproxy.cfg');
    await writeFile(config, await haproxyConfig(port, replicas));
    const checked = spawn('haproxy', ['-c', '-f', config], { stdio: 'ignore' });
    expect((await once(checked, 'exit'))[0]).toBe(0);
    haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' });
    // The replicas' own certificate: the load balancer passes TLS through.
    lb = new HttpsClient(
      `https://127.0.0.1:${port}/api2/json`,
      await readFile(join(replicas[0]?.dataDir ?? fail(), 'tls/corral.crt'), 'utf8'),
    );
    const api = guestApi(replicas[0] ?? fail(), ROOT_PASSWORD, PATIENCE_MS);
    agent = AgentProcess.agent(await api.joinedAgentConfig(root, NODE, `https://127.0.0.1:${port}`), { CORRAL_DRIVER: 'native' });
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    lb?.close();
    await agent?.kill();
    haproxy?.kill();
    for (const pid of await processesUnder(root)) process.kill(pid, 'SIGKILL');
    for (const replica of replicas ?? []) await replica.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  /** The node's status, read through the load balancer as root (an agent command, answered by the replica holding the node). */
  const nodeStatus = async () => {
    // Null too while HAProxy does not listen yet.
    const response = await lb.send(`/nodes/${NODE}/status`, { headers: asRoot }).catch(() => null);
    return response?.status === 200 ? data<{ kversion: string }>(response) : null;
  };
  /** The address of the replica holding the node's agent, while the node is online. */
  const holder = async () =>
    (
      (
        await db.query(`SELECT r."address" FROM "nodes" n JOIN "replicas" r ON r."id" = n."replica" WHERE n."name" = $1 AND n."online"`, [
          NODE,
        ])
      ).rows as { address: string }[]
    )[0]?.address;

  it('serves the API and the agent through it, and the agent is back after the replica holding it is killed', async () => {
    await waitFor(async () => (await nodeStatus()) !== null, {
      timeoutMs: PATIENCE_MS,
      what: `${NODE} answering through the load balancer`,
    });
    const first = await holder();
    const held = replicas.findIndex((replica) => first === `https://127.0.0.1:${replica.port}`);
    expect(held).toBeGreaterThanOrEqual(0);
    await replicas[held]?.stop('SIGKILL');
    await waitFor(async () => ![undefined, first].includes(await holder()), {
      timeoutMs: PATIENCE_MS,
      what: `${NODE} held by the other replica`,
    });
    await waitFor(async () => (await nodeStatus()) !== null, { timeoutMs: PATIENCE_MS, what: `${NODE} answering again` });
    expect((await nodeStatus())?.kversion).toEqual(expect.any(String));
  });
});
