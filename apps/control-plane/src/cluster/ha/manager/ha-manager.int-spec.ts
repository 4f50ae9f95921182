import { waitFor } from '@corral/testing';
import { call, dataOf } from '../../../../test-support/access-fixture.js';
import { FakeGuestNode } from '../../../../test-support/fake-guest-node.js';
import { events, joinNode, onlineAgent } from '../../../../test-support/node-fixture.js';
import { finished } from '../../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../../test-support/test-app.js';
import { GuestsModule } from '../../../guests/guests.module.js';
import { TasksModule } from '../../../tasks/tasks.module.js';
import { ClusterModule } from '../../cluster.module.js';
import { HaManagerModule } from './ha-manager.module.js';

/** How many times `node` was asked to start the guest. */
const starts = (node: FakeGuestNode, vmid: number) =>
  node.asked.filter((request) => request.command === 'guest.start' && (request.params as { guest: { vmid: number } }).guest.vmid === vmid)
    .length;

const patience = (what: string) => ({ timeoutMs: 20_000, what });

describe('the HA manager: fencing, recovery and the requested state', () => {
  let t: TestApp;
  const b = new FakeGuestNode(2222);
  const c = new FakeGuestNode(3333);

  const haState = async (vmid: number) =>
    (
      (await t.dataSource.query(
        'SELECT r."state", r."crm_state", g."node" FROM "ha_resources" r JOIN "guests" g USING ("vmid") WHERE "vmid" = $1',
        [vmid],
      )) as { state: string; crm_state: string; node: string }[]
    )[0];
  /** A VM on `node`, under HA: inserted as the API leaves them (its storage shared or not); running as last reported on a node about to be lost, else stopped. */
  const haVm = async (
    vmid: number,
    node: string,
    options: { storage?: string; group?: string; lock?: string; state?: string; maxRestart?: number; maxRelocate?: number } = {},
  ) => {
    await t.dataSource.query(
      `INSERT INTO "guests" ("vmid", "type", "node", "config", "lock", "status") VALUES ($1, 'qemu', $2, $3, $4, $5)`,
      [
        vmid,
        node,
        { name: `ha${vmid}`, memory: '64', scsi0: `${options.storage ?? 'san'}:${vmid}/vm-${vmid}-disk-0.qcow2,size=64M` },
        options.lock ?? null,
        ['a', 'd'].includes(node) ? 'running' : 'stopped',
      ],
    );
    await t.dataSource.query(
      `INSERT INTO "ha_resources" ("vmid", "type", "state", "group", "max_restart", "max_relocate") VALUES ($1, 'vm', $2, $3, $4, $5)`,
      [vmid, options.state ?? 'started', options.group ?? null, options.maxRestart ?? 1, options.maxRelocate ?? 1],
    );
    await t.dataSource.query(`SELECT pg_notify('corral_guests', $1)`, [String(vmid)]);
  };
  /** The node's agent is gone (offline) and its lease ends `leaseS` seconds from now (negative: already over). */
  const lost = async (node: string, leaseS: number) => {
    await t.dataSource.query(
      `UPDATE "nodes" SET "online" = false, "connection" = NULL, "last_seen" = now() - interval '20 s', "lease_until" = now() + make_interval(secs => $2) WHERE "name" = $1`,
      [node, leaseS],
    );
  };
  const tasksOf = async (type: string, vmid: number) =>
    (await t.dataSource.query(
      'SELECT "upid", "node", "exitstatus", "user" FROM "tasks" WHERE "type" = $1 AND "id" = $2 ORDER BY "starttime", "upid"',
      [type, String(vmid)],
    )) as { upid: string; node: string; exitstatus: string | null; user: string }[];
  const logOf = async (upid: string) =>
    ((await t.dataSource.query('SELECT "t" AS "text" FROM "task_logs" WHERE "upid" = $1 ORDER BY "n"', [upid])) as { text: string }[]).map(
      (row) => row.text,
    );

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, HaManagerModule] });
    for (const [name, node] of [
      ['b', b],
      ['c', c],
    ] as const)
      node.agent = await onlineAgent(t, name, await joinNode(t, name), {
        answer: (request) => node.answer(request),
        numberedHeartbeats: true,
      });
    for (const name of ['a', 'd']) await joinNode(t, name);
    await t.dataSource.query(
      `INSERT INTO "storages" ("storage", "type", "path", "content", "nodes", "shared", "disable") VALUES ('san', 'dir', '/mnt/san', '{images}', NULL, true, false), ('only-a-d', 'dir', '/mnt/ad', '{images}', '{a,d}', true, false)`,
    );
    await t.dataSource.query(
      `INSERT INTO "ha_groups" ("group", "nodes", "restricted") VALUES ('prefer-c', '[{"node":"c","priority":2},{"node":"b","priority":1}]', false), ('only-d', '[{"node":"d","priority":null}]', true)`,
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  it('waits for the lease of a lost node, then moves its HA guests to the online node its group prefers, which starts them', async () => {
    await haVm(100, 'a', { group: 'prefer-c' });
    await haVm(101, 'a');
    await lost('a', 4);
    await waitFor(
      async () => (await haState(100))?.crm_state === 'fence' && (await haState(101))?.crm_state === 'fence',
      patience('the lost guests fenced'),
    );
    expect((await events(t)).filter((event) => event.event === 'ha-fence')).toEqual([expect.objectContaining({ node: 'a' })]);
    // Nothing moves while the lease runs, even with the node offline.
    expect(await haState(100)).toMatchObject({ node: 'a' });

    await waitFor(
      async () => (await haState(100))?.crm_state === 'started' && (await haState(101))?.crm_state === 'started',
      patience('the lost guests recovered and started'),
    );
    // Moved only once the lease had run out, by the database's clock.
    const [moved] = (await t.dataSource.query(
      `SELECT e."timestamp" >= n."lease_until" AS "after" FROM "events" e JOIN "nodes" n ON n."name" = 'a' WHERE e."event" = 'ha-recover' AND e."vmid" = 100`,
    )) as { after: boolean }[];
    expect(moved).toEqual({ after: true });
    expect(await haState(100)).toMatchObject({ node: 'c', state: 'started' });
    // The least loaded node for the one without a group: c takes 100 first in the same round.
    expect(await haState(101)).toMatchObject({ node: 'b' });
    expect(c.running.has(100) && b.running.has(101)).toBe(true);
    const [recover] = await tasksOf('harecover', 100);
    expect(recover).toMatchObject({ node: 'c', exitstatus: 'OK', user: 'root@pam' });
    expect((await logOf(recover?.upid ?? '')).join('\n')).toMatch(
      /node 'a' is offline and its HA lease expired.*\n.*recovering vm:100 on node 'c' \(group 'prefer-c', priority 2\)/,
    );
    expect(await tasksOf('qmstart', 100)).toEqual([expect.objectContaining({ node: 'c', exitstatus: 'OK', user: 'root@pam' })]);
    const recoveries = (await events(t)).filter((event) => event.event === 'ha-recover');
    expect(recoveries.map((event) => event.node).sort()).toEqual(['b', 'c']);
    expect(
      dataOf<{ node: string }[]>(await call(t, 'GET', '/cluster/resources?type=vm')).find(
        (entry) => (entry as { vmid?: number }).vmid === 100,
      ),
    ).toMatchObject({ node: 'c', status: 'running' });
  });

  it('does not move a guest it cannot place, and says why once in a failed harecover task on its node', async () => {
    await haVm(110, 'd', { storage: 'only-a-d' });
    await haVm(111, 'd', { group: 'only-d' });
    await haVm(112, 'd', { storage: 'local' });
    await haVm(113, 'd', { lock: 'migrate' });
    await lost('d', -1);
    await waitFor(
      async () =>
        (await Promise.all([110, 111, 112, 113].map((vmid) => tasksOf('harecover', vmid)))).every(
          (tasks) => tasks.length === 1 && tasks[0]?.exitstatus !== null,
        ),
      patience('one harecover task per guest that cannot move'),
    );
    const reasons = await Promise.all([110, 111, 112, 113].map(async (vmid) => (await tasksOf('harecover', vmid))[0]?.exitstatus));
    expect(reasons[0]).toMatch(/cannot recover vm:110 from node 'd' now: no online node reaches storage 'only-a-d'/);
    expect(reasons[1]).toMatch(/group 'only-d' is restricted to nodes 'd', and none of them is online/);
    expect(reasons[2]).toMatch(/storage 'local', which is not shared/);
    expect(reasons[3]).toMatch(/locked \(migrate\)/);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const vmid of [110, 111, 112, 113]) {
      expect(await tasksOf('harecover', vmid)).toHaveLength(1);
      expect(await haState(vmid)).toMatchObject({ node: 'd', crm_state: 'fence' });
    }
  });

  it('restarts a crashed HA guest where it is, and gives up after max_restart failed starts (no relocation allowed)', async () => {
    await haVm(120, 'b', { maxRestart: 1, maxRelocate: 0 });
    await waitFor(() => b.running.has(120), patience('vm:120 running on b'));
    b.set(120, undefined);
    await waitFor(() => b.running.has(120), patience('vm:120 running on b'));
    expect(starts(b, 120)).toBe(2);

    b.failing.add('guest.start');
    b.set(120, undefined);
    await waitFor(async () => (await haState(120))?.crm_state === 'error', { timeoutMs: 40_000, what: 'vm:120 in error' });
    expect(starts(b, 120)).toBe(4);
    expect((await events(t)).filter((event) => event.event === 'ha-error')).toEqual([expect.objectContaining({ node: 'b' })]);
    b.failing.delete('guest.start');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(starts(b, 120)).toBe(4);
  }, 60_000);

  it('relocates a VM that failed to start more than max_restart times to another node, where it runs', async () => {
    b.failing.add('guest.start');
    try {
      await haVm(121, 'b', { maxRestart: 0, maxRelocate: 1 });
      await waitFor(async () => (await haState(121))?.node === 'c' && c.running.has(121), patience('vm:121 relocated to c and running'));
    } finally {
      b.failing.delete('guest.start');
    }
    expect(starts(b, 121)).toBe(1);
    expect((await tasksOf('qmigrate', 121))[0]).toMatchObject({ node: 'b', user: 'root@pam' });
    // Once its start there is done, its counts start afresh.
    const counts = async () =>
      ((await t.dataSource.query('SELECT "restarts", "relocations", "crm_state" FROM "ha_resources" WHERE "vmid" = 121')) as unknown[])[0];
    await waitFor(
      async () => (await tasksOf('qmstart', 121)).some((task) => task.node === 'c' && task.exitstatus === 'OK'),
      patience('the start of vm:121 on c ended'),
    );
    await waitFor(
      async () => JSON.stringify(await counts()) === JSON.stringify({ restarts: 0, relocations: 0, crm_state: 'started' }),
      patience('the counts of vm:121 cleared'),
    );
  });

  it('turns a stop and a start through the API into HA requests (hastop, hastart) that the manager keeps', async () => {
    await haVm(130, 'c');
    await waitFor(() => c.running.has(130), patience('vm:130 running on c'));
    const stop = dataOf<string>(await call(t, 'POST', '/nodes/c/qemu/130/status/stop'));
    expect(stop).toMatch(/:hastop:130:root@pam:$/);
    expect(await finished(t, 'c', stop)).toBe('OK');
    expect(await haState(130)).toMatchObject({ state: 'stopped' });
    expect(c.running.has(130)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(c.running.has(130)).toBe(false);
    await waitFor(async () => (await haState(130))?.crm_state === 'stopped', patience('vm:130 stopped for HA'));

    const start = dataOf<string>(await call(t, 'POST', '/nodes/c/qemu/130/status/start'));
    expect(start).toMatch(/:hastart:130:root@pam:$/);
    expect(await finished(t, 'c', start)).toBe('OK');
    expect(await logOf(start)).toEqual(['Requesting HA start for VM 130', 'TASK OK']);
    expect(await haState(130)).toMatchObject({ state: 'started' });
    await waitFor(() => c.running.has(130), patience('vm:130 started by the HA manager'));
    await waitFor(async () => (await tasksOf('qmstart', 130)).at(-1)?.exitstatus === 'OK', patience('the qmstart task of vm:130 ended'));
    expect((await tasksOf('qmstart', 130)).at(-1)).toMatchObject({ node: 'c', user: 'root@pam' });
    expect(
      c.asked.filter((request) => request.command === 'guest.start').every((request) => (request.params as { ha?: boolean }).ha === true),
    ).toBe(true);
  });
});
