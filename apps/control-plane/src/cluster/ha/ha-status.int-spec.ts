import { hostname } from 'node:os';
import { addUser, basic, call, dataOf, expectError, grant } from '../../../test-support/access-fixture.js';
import { joinNode } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { GuestsModule } from '../../guests/guests.module.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { ClusterModule } from '../cluster.module.js';
import { HaModule } from './ha.module.js';
import type { HaManagerStatus, HaStatusEntry } from './ha-status.endpoints.js';

const epoch = (date: Date) => Math.floor(date.getTime() / 1000);

describe('HA status (/cluster/ha/status, /current, /manager_status)', () => {
  let t: TestApp;
  const seen = new Date('2030-01-02T03:04:05Z');
  const lease = new Date('2030-01-02T03:04:35Z');

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, GuestsModule, HaModule] });
    for (const node of ['pve1', 'pve2', 'pve3']) await joinNode(t, node);
    // pve1 runs HA guests, pve2 none, pve3 is offline with an HA guest still on it.
    await t.dataSource.query(
      `UPDATE "nodes" SET "online" = "name" <> 'pve3', "last_seen" = $1, "lease_until" = CASE WHEN "name" = 'pve1' THEN $2::timestamptz END`,
      [seen, lease],
    );
    const guests = t.app.get(GuestsRepository);
    await guests.insert({ vmid: 100, type: 'qemu', node: 'pve1', config: {}, lock: null });
    await guests.insert({ vmid: 101, type: 'lxc', node: 'pve3', config: {}, lock: null });
    await guests.insert({ vmid: 102, type: 'qemu', node: 'pve2', config: {}, lock: null });
    dataOf(await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'prod', nodes: 'pve1:2,pve2' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:100', group: 'prod', comment: 'web' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'ct:101', max_relocate: 2 } }));
    // An ignored guest does not make its node's LRM active.
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:102', state: 'ignored' } }));
    await t.dataSource.query(`UPDATE "ha_resources" SET "crm_state" = 'fence' WHERE "vmid" = 101`);
    await addUser(t, 'auditor@pve', { password: 'audit-password' });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
  });
  afterAll(() => t.close());

  const manager = (lastRound: string) =>
    t.dataSource.query(
      `INSERT INTO "ha_manager" ("id", "holder", "since", "last_round") VALUES (1, 'cp1:4242', now() - interval '1 hour', ${lastRound}) ON CONFLICT ("id") DO UPDATE SET "last_round" = EXCLUDED."last_round"`,
    );

  const lrmAndServices = (seenText: string): HaStatusEntry[] => [
    { id: 'lrm:pve1', type: 'lrm', node: 'pve1', status: `pve1 (active, ${seenText})`, timestamp: epoch(seen), lease_until: epoch(lease) },
    { id: 'lrm:pve2', type: 'lrm', node: 'pve2', status: `pve2 (idle, ${seenText})`, timestamp: epoch(seen) },
    { id: 'lrm:pve3', type: 'lrm', node: 'pve3', status: `pve3 (lost, ${seenText})`, timestamp: epoch(seen) },
    {
      id: 'service:vm:100',
      type: 'service',
      sid: 'vm:100',
      node: 'pve1',
      crm_state: 'started',
      state: 'started',
      request_state: 'started',
      status: 'vm:100 (pve1, started)',
      group: 'prod',
      max_restart: 1,
      max_relocate: 1,
      comment: 'web',
    },
    {
      id: 'service:ct:101',
      type: 'service',
      sid: 'ct:101',
      node: 'pve3',
      crm_state: 'fence',
      state: 'fence',
      request_state: 'started',
      status: 'ct:101 (pve3, fence)',
      max_restart: 1,
      max_relocate: 2,
    },
    {
      id: 'service:vm:102',
      type: 'service',
      sid: 'vm:102',
      node: 'pve2',
      crm_state: 'ignored',
      state: 'ignored',
      request_state: 'ignored',
      status: 'vm:102 (pve2, ignored)',
      max_restart: 1,
      max_relocate: 1,
    },
  ];

  it("shows the quorum, the manager of the last round, each node's LRM and each resource, as PVE's status/current; Corral's path the same", async () => {
    await manager('now()');
    const entries = dataOf<HaStatusEntry[]>(await call(t, 'GET', '/cluster/ha/status/current'));
    const master = entries[1] as Extract<HaStatusEntry, { type: 'master' }>;
    expect(master.timestamp).toBeGreaterThan(Date.now() / 1000 - 60);
    const seenText = /\((?:active|idle|lost), (.+)\)$/.exec((entries[2] as { status: string }).status)?.[1] ?? '';
    expect(seenText).toMatch(/^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) Jan  [12] \d\d:\d\d:\d\d 2030$/);
    expect(entries).toEqual([
      { id: 'quorum', type: 'quorum', node: hostname(), status: 'OK', quorate: 1 },
      {
        id: 'master',
        type: 'master',
        node: 'cp1:4242',
        status: expect.stringMatching(/^cp1:4242 \(active, \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\)$/),
        timestamp: master.timestamp,
      },
      ...lrmAndServices(seenText),
    ]);
    expect(dataOf(await call(t, 'GET', '/cluster/ha/status'))).toEqual(entries);
  });

  it('leaves out a manager whose last round is 10 s old or more', async () => {
    await manager("now() - interval '11 seconds'");
    const entries = dataOf<HaStatusEntry[]>(await call(t, 'GET', '/cluster/ha/status/current'));
    expect(entries.map((entry) => entry.id)).toEqual([
      'quorum',
      'lrm:pve1',
      'lrm:pve2',
      'lrm:pve3',
      'service:vm:100',
      'service:ct:101',
      'service:vm:102',
    ]);
  });

  it("shows PVE's raw manager status: nodes online, or fenced while they hold HA guests; services; LRM states", async () => {
    await manager("now() - interval '2 seconds'");
    const status = dataOf<HaManagerStatus>(await call(t, 'GET', '/cluster/ha/status/manager_status'));
    expect(status).toEqual({
      manager_status: {
        master_node: 'cp1:4242',
        node_status: { pve1: 'online', pve2: 'online', pve3: 'fence' },
        service_status: {
          'vm:100': { node: 'pve1', state: 'started' },
          'ct:101': { node: 'pve3', state: 'fence' },
          'vm:102': { node: 'pve2', state: 'ignored' },
        },
        timestamp: expect.any(Number),
      },
      quorum: { node: hostname(), quorate: '1' },
      lrm_status: {
        pve1: { mode: 'active', state: 'active', timestamp: epoch(seen) },
        pve2: { mode: 'active', state: 'wait_for_agent_lock', timestamp: epoch(seen) },
        pve3: { mode: 'active', state: 'lost', timestamp: epoch(seen) },
      },
    });
    // Once its guest is gone, an offline node has nothing to fence.
    await t.dataSource.query(`UPDATE "guests" SET "node" = 'pve1' WHERE "vmid" = 101`);
    const after = dataOf<HaManagerStatus>(await call(t, 'GET', '/cluster/ha/status/manager_status'));
    expect(after.manager_status.node_status).toEqual({ pve1: 'online', pve2: 'online', pve3: 'unknown' });
    await t.dataSource.query(`UPDATE "guests" SET "node" = 'pve3' WHERE "vmid" = 101`);
  });

  it('serves the index, and the reads to Sys.Audit only', async () => {
    expect(dataOf(await call(t, 'GET', '/cluster/ha'))).toEqual([{ id: 'status' }, { id: 'resources' }, { id: 'groups' }]);
    const auditor = basic('auditor@pve', 'audit-password');
    expect(dataOf<HaStatusEntry[]>(await call(t, 'GET', '/cluster/ha/status/current', { as: auditor }))[0]).toEqual(
      expect.objectContaining({ id: 'quorum' }),
    );
    expectError(
      await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'nope', nodes: 'pve1' }, as: auditor }),
      403,
      'permission denied',
    );
  });
});
