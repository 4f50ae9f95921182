import { waitFor, type FakeAgent } from '@corral/testing';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { NodesModule } from '../nodes/nodes.module.js';

const LEASE_S = 20;

describe('the HA leases of the agents', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, NodesModule], env: { CORRAL_HA_LEASE_S: String(LEASE_S) } });
  });
  afterAll(() => t.close());

  const guest = async (vmid: number, type: 'qemu' | 'lxc', node: string, ha?: string) => {
    await t.dataSource.query(`INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES ($1, $2, $3, $4, 'running')`, [
      vmid,
      type,
      node,
      { name: `g${vmid}` },
    ]);
    if (ha !== undefined)
      await t.dataSource.query(`INSERT INTO "ha_resources" ("vmid", "type", "state") VALUES ($1, $2, $3)`, [
        vmid,
        type === 'qemu' ? 'vm' : 'ct',
        ha,
      ]);
  };
  /** The node's lease end and last heartbeat write, each as seconds from the database's now. */
  const leaseOf = async (node: string) =>
    (
      (await t.dataSource.query(
        `SELECT extract(epoch FROM "lease_until" - now())::float AS "leaseS", extract(epoch FROM "lease_until")::float AS "until", extract(epoch FROM "last_seen")::float AS "seen" FROM "nodes" WHERE "name" = $1`,
        [node],
      )) as { leaseS: number | null; until: number | null; seen: number }[]
    )[0];
  const noLease = (agent: FakeAgent) => expect(agent.next('lease', 0)).rejects.toThrow('no lease frame');

  it("answers a numbered heartbeat with a lease naming it and the node's HA guests, written as now + CORRAL_HA_LEASE_S", async () => {
    const agent = await onlineAgent(t, 'lease1', await joinNode(t, 'lease1'));
    await joinNode(t, 'lease2');
    await guest(701, 'qemu', 'lease1', 'started');
    await guest(702, 'lxc', 'lease1', 'stopped');
    await guest(703, 'qemu', 'lease1', 'ignored');
    await guest(704, 'qemu', 'lease1');
    await guest(705, 'qemu', 'lease2', 'started');
    agent.send({ type: 'heartbeat', n: 1 });
    expect(await agent.next('lease', 5000)).toEqual({
      type: 'lease',
      upTo: 1,
      ttlMs: LEASE_S * 1000,
      guests: [
        { type: 'qemu', vmid: 701 },
        { type: 'lxc', vmid: 702 },
      ],
    });
    expect((await leaseOf('lease1'))?.leaseS).toBeGreaterThan(LEASE_S - 3);
    expect((await leaseOf('lease1'))?.leaseS).toBeLessThanOrEqual(LEASE_S);
    expect((await leaseOf('lease2'))?.leaseS).toBeNull();

    // The newest of several heartbeats since the last grant.
    agent.send({ type: 'heartbeat', n: 2 });
    agent.send({ type: 'heartbeat', n: 3 });
    expect(await agent.next('lease', 5000)).toEqual(expect.objectContaining({ upTo: 3 }));
    agent.close();
  });

  it('extends no lease without a new numbered heartbeat, though unnumbered ones keep the node online', async () => {
    const agent = await onlineAgent(t, 'lease3', await joinNode(t, 'lease3'));
    await guest(711, 'qemu', 'lease3', 'started');
    agent.send({ type: 'heartbeat', n: 7 });
    expect(await agent.next('lease', 5000)).toEqual(expect.objectContaining({ upTo: 7, guests: [{ type: 'qemu', vmid: 711 }] }));
    const granted = await leaseOf('lease3');
    // The same number again, then two liveness ticks (each writes last_seen) with only the fake agent's unnumbered heartbeats.
    agent.send({ type: 'heartbeat', n: 7 });
    await waitFor(async () => ((await leaseOf('lease3'))?.seen ?? 0) > (granted?.seen ?? 0) + 3, {
      timeoutMs: 10_000,
      what: 'two more liveness ticks',
    });
    expect((await leaseOf('lease3'))?.until).toBe(granted?.until);
    await noLease(agent);

    agent.send({ type: 'heartbeat', n: 8 });
    expect(await agent.next('lease', 5000)).toEqual(expect.objectContaining({ upTo: 8 }));
    expect((await leaseOf('lease3'))?.until).toBeGreaterThan(granted?.until ?? Infinity);
    agent.close();
  });

  it('grants an agent that restarted from its first heartbeat again, with an empty list once its guests are no longer under HA', async () => {
    const credential = await joinNode(t, 'lease4');
    const first = await onlineAgent(t, 'lease4', credential);
    await guest(721, 'lxc', 'lease4', 'started');
    first.send({ type: 'heartbeat', n: 40 });
    expect(await first.next('lease', 5000)).toEqual(expect.objectContaining({ upTo: 40 }));
    first.close();
    await t.dataSource.query(`DELETE FROM "ha_resources" WHERE "vmid" = 721`);
    const second = await onlineAgent(t, 'lease4', credential, { hello: { session: 'restarted-agent' } });
    second.send({ type: 'heartbeat', n: 1 });
    expect(await second.next('lease', 5000)).toEqual({ type: 'lease', upTo: 1, ttlMs: LEASE_S * 1000, guests: [] });
    second.close();
  });
});
