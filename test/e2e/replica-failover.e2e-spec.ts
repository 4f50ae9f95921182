import { FakeAgent, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplicas, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'failover-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. The sweep of a killed replica's tasks starts 30 s after its last heartbeat. */
const PATIENCE_MS = 75_000;
const NODE = 'mover';

// Three replicas on one database and one scripted agent session that moves between them while a
// task's last step runs on it: the answer the agent gives the replica it reaches next ends the task,
// whether the replica that started it is alive, killed or stopped.
describe('the answer of an agent that moved to another replica', () => {
  let root: string;
  let replicas: ControlPlaneProcess[];
  let through: ReturnType<typeof guestApi>[];
  let cert: string;
  let credential: string;
  const session = randomUUID();
  const agents: FakeAgent[] = [];
  /** The replicas the last welcome named. */
  let named: readonly string[] | undefined;

  /** The agent session, connected and welcomed at the replica `index`. */
  const connectTo = async (index: number): Promise<FakeAgent> => {
    const replica = replicas[index] ?? fail();
    const agent = await FakeAgent.connect({
      url: `wss://127.0.0.1:${replica.port}/agent/v1`,
      ca: cert,
      node: NODE,
      credential,
      // The update is answered by the test, on the replica it chooses; anything else the replicas ask at once.
      answer: (request) =>
        request.command === 'node.apt.update'
          ? new Promise<never>(() => undefined)
          : { failure: 'unknown-command', message: `the test agent does not run ${request.command}` },
      hello: { session },
    });
    agents.push(agent);
    ({ replicas: named } = await agent.hello());
    await waitFor(
      async () =>
        data<{ node: string; status: string }[]>(await (through[index] ?? fail()).send('/nodes')).some(
          (node) => node.node === NODE && node.status === 'online',
        ),
      {
        timeoutMs: PATIENCE_MS,
        what: `${NODE} online`,
      },
    );
    return agent;
  };

  /** Starts an apt update (a task whose one command is its last step) through replica `index`; its UPID and the request the agent got. */
  const startTask = async (index: number, agent: FakeAgent) => {
    const upid = data<string>(await (through[index] ?? fail()).send(`/nodes/${NODE}/apt/update`, 'POST'));
    let request = await agent.next('request', PATIENCE_MS);
    while (request.upid !== upid) request = await agent.next('request', PATIENCE_MS);
    expect(request.command).toBe('node.apt.update');
    return { upid, request };
  };

  /** The task's exit status and log lines, read through replica `index` once it ended. */
  const ended = async (index: number, upid: string) => {
    const api = through[index] ?? fail();
    // The exit status, without the log taskEnd adds to a failure.
    const status = (await api.taskEnd(NODE, upid)).split('\n')[0];
    const log = data<{ t: string }[]>(await api.send(`/nodes/${NODE}/tasks/${encodeURIComponent(upid)}/log?limit=0`)).map((line) => line.t);
    return { status, log };
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-failover-'));
    replicas = await startReplicas(3, { root, databaseUrl: await testDatabaseUrl(), env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    through = replicas.map((replica) => guestApi(replica, ROOT_PASSWORD, PATIENCE_MS));
    cert = await readFile(join(replicas[0]?.dataDir ?? fail(), 'tls/corral.crt'), 'utf8');
    const api = through[0] ?? fail();
    const { token } = data<{ token: string }>(await api.send('/cluster/join-tokens', 'POST', { node: NODE }));
    const joined = data<{ credential: string; urls: string[] }>(await api.send('/cluster/join', 'POST', { token, node: NODE }));
    // Where the agent may go: every replica.
    expect(joined.urls).toEqual(replicas.map((each) => `https://127.0.0.1:${each.port}`).sort());
    credential = joined.credential;
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    for (const agent of agents) agent.close();
    for (const replica of replicas ?? []) await replica.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('reaches the live replica that waits for it, output lines first; each welcome names every replica', async () => {
    const first = await connectTo(0);
    expect(named).toEqual(replicas.map((each) => `https://127.0.0.1:${each.port}`).sort());
    const { upid, request } = await startTask(0, first);
    first.close();
    const second = await connectTo(1);
    second.send({ type: 'log', id: request.id, lines: [{ n: 1, text: 'Hit:1 said to replica 2' }] });
    second.send({ type: 'result', id: request.id, result: null });
    expect(await ended(0, upid)).toEqual({ status: 'OK', log: ['Hit:1 said to replica 2', 'TASK OK'] });
  });

  it('ends the task of a replica killed with SIGKILL with the real answer, through the replica the agent reaches next', async () => {
    const onSecond = agents.at(-1) ?? fail();
    const { upid, request } = await startTask(1, onSecond);
    await replicas[1]?.stop('SIGKILL');
    const third = await connectTo(2);
    third.send({ type: 'failure', id: request.id, code: 'failed', message: 'E: the repository is not signed' });
    expect(await ended(2, upid)).toEqual({
      status: 'E: the repository is not signed',
      log: ['TASK ERROR: E: the repository is not signed'],
    });
  });

  it('leaves the task of a replica stopped while its last step runs to the replica the agent moves to', async () => {
    const onThird = agents.at(-1) ?? fail();
    const { upid, request } = await startTask(2, onThird);
    await replicas[2]?.stop();
    const back = await connectTo(0);
    back.send({ type: 'result', id: request.id, result: null });
    expect(await ended(0, upid)).toEqual({ status: 'OK', log: ['TASK OK'] });
  });
});
