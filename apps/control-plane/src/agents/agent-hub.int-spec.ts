import { CLOSE_CODES, PROTOCOL_VERSION } from '@corral/protocol';
import { FakeAgent, waitFor } from '@corral/testing';
import { isDeepStrictEqual } from 'node:util';
import { DataSource } from 'typeorm';
import { addUser, basic, call, dataOf, expectError, grant, ROOT } from '../../test-support/access-fixture.js';
import { events, INVENTORY, joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { OLDER_AGENT_STATUS as STATUS } from '../../test-support/node-status-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { NodesModule } from '../nodes/nodes.module.js';

const nodeEntry = async (t: TestApp, node: string) =>
  dataOf<{ node: string; status: string }[]>(await call(t, 'GET', '/nodes')).find((entry) => entry.node === node);

describe('the agent hub', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, NodesModule] });
  });
  afterAll(() => t.close());

  it('brings a joined node online at hello, shows its inventory in /nodes and /cluster/status, and answers /nodes/{node}/status from its agent', async () => {
    const credential = await joinNode(t, 'alpha');
    expect(await nodeEntry(t, 'alpha')).toEqual(expect.objectContaining({ status: 'offline' }));
    expectError(await call(t, 'GET', '/nodes/alpha/status'), 503, "node 'alpha' is offline");

    const agent = await onlineAgent(t, 'alpha', credential, {
      answer: (request) =>
        request.command === 'node.status'
          ? { result: STATUS }
          : { failure: 'unknown-command', message: `unknown command '${request.command}'` },
    });
    await waitFor(async () => (await nodeEntry(t, 'alpha'))?.status === 'online', { timeoutMs: 5000, what: 'alpha online' });
    const seq = agent.send({ type: 'report', payload: INVENTORY });
    expect(await agent.next('ack')).toEqual({ type: 'ack', upTo: seq });
    expect(await nodeEntry(t, 'alpha')).toEqual(
      expect.objectContaining({
        node: 'alpha',
        id: 'node/alpha',
        type: 'node',
        status: 'online',
        cpu: 0.25,
        maxcpu: 8,
        mem: 2e9,
        maxmem: 8e9,
        memtotal: 8e9,
        disk: 4e10,
        maxdisk: 1e11,
        uptime: 3600,
        level: '',
      }),
    );
    // Written to the node's row too (what the other replicas read), with the others changed within the same second.
    const { kind: _kind, ...written } = INVENTORY;
    await waitFor(
      async () => {
        const [row] = (await t.app.get(DataSource).query('SELECT "inventory" FROM "nodes" WHERE "name" = $1', ['alpha'])) as {
          inventory: unknown;
        }[];
        return isDeepStrictEqual(row?.inventory, written);
      },
      { timeoutMs: 10_000, what: "alpha's inventory in its row" },
    );
    const cluster = dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/cluster/status'));
    expect(cluster[0]).toEqual({ type: 'cluster', id: 'cluster', name: 'corral', nodes: expect.any(Number), quorate: true, version: 1 });
    expect(cluster).toContainEqual(
      expect.objectContaining({
        type: 'node',
        node: 'alpha',
        name: 'alpha',
        status: 'online',
        online: 1,
        local: 1,
        cpu: 0.25,
        mem: 2e9,
        maxmem: 8e9,
        disk: 4e10,
        maxdisk: 1e11,
        uptime: 3600,
      }),
    );

    const status = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/alpha/status'));
    expect(status).toEqual(
      expect.objectContaining({
        cpu: 0.25,
        loadavg: ['0.50', '0.25', '0.13'],
        kversion: 'Linux 6.1.0-test #1 SMP',
        pveversion: 'pve-manager/9.1.0/0000000000000000',
        'current-kernel': STATUS.kernel,
      }),
    );
    agent.close();
  });

  it('answers an unknown node with 404 and a failure of the agent with its message', async () => {
    expectError(await call(t, 'GET', '/nodes/nowhere/status'), 404, "node 'nowhere' does not exist");
    const credential = await joinNode(t, 'beta');
    const agent = await onlineAgent(t, 'beta', credential, { answer: () => ({ failure: 'failed', message: 'lsblk: cannot open /dev' }) });
    expectError(await call(t, 'GET', '/nodes/beta/status'), 500, 'lsblk: cannot open /dev');
    agent.close();
  });

  it('refuses a wrong credential or path at the upgrade', async () => {
    const credential = await joinNode(t, 'gamma');
    await expect(FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node: 'gamma', credential: 'x'.repeat(43) })).rejects.toThrow(
      'upgrade refused: 401',
    );
    await expect(FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node: 'alpha', credential })).rejects.toThrow('upgrade refused: 401');
    await expect(
      FakeAgent.connect({ url: t.agentUrl.replace('/agent/v1', '/agent/v0'), ca: t.cert, node: 'gamma', credential }),
    ).rejects.toThrow('upgrade refused: 404');
  });

  it('closes with the code that says why: invalid frame, frame before hello, another node, another protocol', async () => {
    const credential = await joinNode(t, 'delta');
    const cases: [string, (agent: FakeAgent) => void, number][] = [
      ['invalid', (agent) => agent.send({ type: 'hello', protocol: 'one' }), CLOSE_CODES.invalidFrame],
      ['early', (agent) => agent.send({ type: 'heartbeat' }), CLOSE_CODES.unexpectedFrame],
      ['node', (agent) => void agent.hello().catch(() => undefined), CLOSE_CODES.nodeMismatch],
      ['protocol', (agent) => void agent.hello().catch(() => undefined), CLOSE_CODES.unsupportedProtocol],
    ];
    for (const [name, act, code] of cases) {
      const hello = name === 'node' ? { node: 'alpha' } : name === 'protocol' ? { protocol: PROTOCOL_VERSION + 1 } : {};
      const agent = await FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node: 'delta', credential, hello });
      act(agent);
      expect({ name, code: await agent.closed() }).toEqual({ name, code });
    }
  });

  it('acknowledges a re-sent frame without handling it twice, and re-sends an unanswered request after a reconnect of the same session', async () => {
    const credential = await joinNode(t, 'epsilon');
    // An agent's events are about the guests of its node.
    await t.dataSource.query(
      `INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES (100, 'qemu', 'epsilon', '{}', 'stopped')`,
    );
    const first = await onlineAgent(t, 'epsilon', credential);
    const pending = call(t, 'GET', '/nodes/epsilon/status');
    const request = await first.next('request');
    first.close();
    const second = await FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node: 'epsilon', credential });
    await second.hello();
    expect(await second.next('request')).toEqual(request);
    second.send({ type: 'result', id: request.id, result: STATUS, seq: 1 });
    expect(dataOf<{ cpu: number }>(await pending).cpu).toBe(0.25);
    // The same frame again (its ack was lost): acknowledged, not handled again.
    second.send({ type: 'event', event: 'vm-start', vmid: 100, timestamp: new Date().toISOString(), seq: 2 });
    expect(await second.next('ack')).toEqual({ type: 'ack', upTo: 1 });
    await waitFor(async () => (await events(t)).some((e) => e.node === 'epsilon' && e.event === 'vm-start'), {
      timeoutMs: 5000,
      what: 'the vm-start event',
    });
    second.send({ type: 'event', event: 'vm-start', vmid: 100, timestamp: new Date().toISOString(), seq: 2 });
    await second.next('ack');
    expect((await events(t)).filter((e) => e.node === 'epsilon' && e.event === 'vm-start')).toHaveLength(1);
    second.close();
  });

  it('marks a node offline with a node-down event when its heartbeats stop for 10 s, and online again with node-up when it is back', async () => {
    const credential = await joinNode(t, 'zeta');
    const agent = await onlineAgent(t, 'zeta', credential);
    await waitFor(async () => (await nodeEntry(t, 'zeta'))?.status === 'online', { timeoutMs: 5000, what: 'zeta online' });
    agent.stopHeartbeats();
    expect(await agent.closed(20_000)).toBe(CLOSE_CODES.heartbeatTimeout);
    await waitFor(async () => (await nodeEntry(t, 'zeta'))?.status === 'offline', { timeoutMs: 5000, what: 'zeta offline everywhere' });
    expect((await events(t)).filter((e) => e.node === 'zeta').map((e) => e.event)).toEqual(['cluster-join', 'node-down']);

    const back = await onlineAgent(t, 'zeta', credential);
    await waitFor(async () => (await nodeEntry(t, 'zeta'))?.status === 'online', { timeoutMs: 5000, what: 'zeta online again' });
    expect((await events(t)).filter((e) => e.node === 'zeta').map((e) => e.event)).toEqual(['cluster-join', 'node-down', 'node-up']);
    back.close();
  }, 30_000);

  it('keeps /nodes and /cluster/status right as a node changes, its agent goes, and a caller gains the right to audit it', async () => {
    await addUser(t, 'olga@pve', { password: 'olga-secret-1' });
    const olga = basic('olga@pve', 'olga-secret-1');
    const seen = async (as = ROOT) =>
      dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/nodes', { as })).find((e) => e.node === 'eta');
    const status = async () =>
      dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/cluster/status')).find((e) => e.type === 'node' && e.node === 'eta');
    const credential = await joinNode(t, 'eta');
    const agent = await onlineAgent(t, 'eta', credential);
    await waitFor(async () => (await seen())?.status === 'online', { timeoutMs: 5000, what: 'eta online' });
    agent.send({ type: 'report', payload: INVENTORY });
    await agent.next('ack');
    expect(await status()).toMatchObject({ online: 1, local: 1, cpu: 0.25 });
    expect(await seen(olga)).toEqual(expect.not.objectContaining({ cpu: expect.anything() }));

    agent.send({ type: 'report', payload: { ...INVENTORY, cpu: 0.75 } });
    await agent.next('ack');
    expect([(await seen())?.['cpu'], (await status())?.['cpu']]).toEqual([0.75, 0.75]);
    await grant(t, { path: '/nodes/eta', type: 'user', ugid: 'olga@pve', roleid: 'PVEAuditor' });
    await waitFor(async () => (await seen(olga))?.['cpu'] === 0.75, { timeoutMs: 5000, what: "eta's load shown to olga" });

    agent.close();
    await waitFor(async () => (await status())?.['online'] === 0, { timeoutMs: 15_000, what: 'eta offline' });
    expect(await status()).toMatchObject({ status: 'offline', local: 0, cpu: 0 });
    expect(await seen()).toEqual(expect.not.objectContaining({ cpu: expect.anything() }));
  }, 30_000);
});
