import { waitFor } from '@corral/testing';
import { call, dataOf, expectError } from '../../../test-support/access-fixture.js';
import { FakeGuestNode } from '../../../test-support/fake-guest-node.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { GuestsModule } from '../../guests/guests.module.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { ClusterModule } from '../cluster.module.js';
import { HaManagerModule } from './manager/ha-manager.module.js';

const patience = (what: string) => ({ timeoutMs: 45_000, what });
// Each test waits for a few HA manager rounds: bounds against a hang on a loaded machine, not measures.
jest.setTimeout(150_000);

describe('moves of HA guests: /cluster/ha/resources/{sid}/migrate and relocate, and the failback to preferred nodes', () => {
  let t: TestApp;
  const b = new FakeGuestNode(2222);
  const c = new FakeGuestNode(3333);

  const nodeOf = async (vmid: number) =>
    ((await t.dataSource.query('SELECT "node" FROM "guests" WHERE "vmid" = $1', [vmid])) as { node: string }[])[0]?.node;
  const moves = (type: string) => async (vmid: number) =>
    (await t.dataSource.query(`SELECT "node", "exitstatus", "user" FROM "tasks" WHERE "type" = $1 AND "id" = $2`, [
      type,
      String(vmid),
    ])) as { node: string; exitstatus: string | null; user: string }[];
  const qmigrates = moves('qmigrate');
  const vzmigrates = moves('vzmigrate');
  /** A guest on `node` under HA, running there (a VM, and a container when `started`) or stopped. */
  const haGuest = async (
    vmid: number,
    node: FakeGuestNode,
    name: string,
    options: { group?: string; type?: 'qemu' | 'lxc'; started?: boolean } = {},
  ) => {
    const type = options.type ?? 'qemu';
    const started = options.started ?? type === 'qemu';
    const config =
      type === 'qemu'
        ? { name: `ha${vmid}`, memory: '64', scsi0: `san:${vmid}/vm-${vmid}-disk-0.qcow2,size=64M` }
        : { hostname: `ct${vmid}`, rootfs: `san:${vmid}/subvol-${vmid}-disk-0,size=1G` };
    await t.dataSource.query(`INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES ($1, $2, $3, $4, 'stopped')`, [
      vmid,
      type,
      name,
      config,
    ]);
    await t.dataSource.query(`INSERT INTO "ha_resources" ("vmid", "type", "state", "group", "crm_state") VALUES ($1, $2, $3, $4, $3)`, [
      vmid,
      type === 'qemu' ? 'vm' : 'ct',
      started ? 'started' : 'stopped',
      options.group ?? null,
    ]);
    await t.dataSource.query(`SELECT pg_notify('corral_guests', $1)`, [String(vmid)]);
    // Written behind the API's back: the guest view takes it in before the test asks for a move.
    await t.app.get(GuestView).reload(vmid);
    if (started) await waitFor(() => node.running.has(vmid), patience(`${vmid} started by HA on ${name}`));
  };

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
    await t.dataSource.query(
      `INSERT INTO "storages" ("storage", "type", "path", "content", "nodes", "shared", "disable") VALUES ('san', 'dir', '/mnt/san', '{images,rootdir}', NULL, true, false)`,
    );
    await t.dataSource.query(
      `INSERT INTO "ha_groups" ("group", "nodes", "restricted", "nofailback") VALUES ('only-b', '[{"node":"b","priority":null}]', true, false), ('prefer-c', '[{"node":"c","priority":2},{"node":"b","priority":1}]', false, false), ('prefer-c-stay', '[{"node":"c","priority":2},{"node":"b","priority":1}]', false, true), ('only-c', '[{"node":"c","priority":null}]', true, false)`,
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses what it cannot move: an unknown resource, the node it is on, a node its restricted group does not allow, an unknown node', async () => {
    await haGuest(200, b, 'b', { group: 'only-b' });
    expectError(
      await call(t, 'POST', '/cluster/ha/resources/vm:299/migrate', { form: { node: 'c' } }),
      404,
      "HA resource 'vm:299' does not exist",
    );
    expectError(
      await call(t, 'POST', '/cluster/ha/resources/vm:200/relocate', { form: { node: 'b' } }),
      400,
      "vm:200 is on node 'b' already",
      'node',
    );
    expectError(
      await call(t, 'POST', '/cluster/ha/resources/vm:200/migrate', { form: { node: 'c' } }),
      400,
      "the group 'only-b' of vm:200 is restricted to nodes 'b', and 'c' is none of them",
      'node',
    );
    await t.dataSource.query(`UPDATE "ha_resources" SET "group" = NULL WHERE "vmid" = 200`);
    expect((await call(t, 'POST', '/cluster/ha/resources/vm:200/migrate', { form: { node: 'nowhere' } })).status).toBe(404);
    expect(await qmigrates(200)).toEqual([]);
    expect(await nodeOf(200)).toBe('b');
  });

  it('migrates a running HA VM live, and relocates one by stopping it, moving it and starting it there', async () => {
    expect(dataOf(await call(t, 'POST', '/cluster/ha/resources/vm:200/migrate', { form: { node: 'c' } }))).toEqual({
      sid: 'vm:200',
      'requested-node': 'c',
    });
    await waitFor(async () => (await nodeOf(200)) === 'c' && c.running.has(200), patience('vm:200 on c'));
    expect(b.running.has(200)).toBe(false);
    expect(
      c.asked.some((request) => request.command === 'guest.migrate.receive' && (request.params as { online?: boolean }).online === true),
    ).toBe(true);
    expect(c.asked.filter((request) => request.command === 'guest.start')).toEqual([]);

    await haGuest(202, b, 'b');
    expect(dataOf(await call(t, 'POST', '/cluster/ha/resources/vm:202/relocate', { form: { node: 'c' } }))).toEqual({
      sid: 'vm:202',
      'requested-node': 'c',
    });
    await waitFor(async () => (await nodeOf(202)) === 'c' && c.running.has(202), patience('vm:202 running on c'));
    expect(b.asked.some((request) => request.command === 'guest.stop' && (request.params as { vmid: number }).vmid === 202)).toBe(true);
    expect(
      c.asked
        .filter((request) => request.command === 'guest.start')
        .map((request) => request.params as { guest: { vmid: number }; ha?: boolean })
        .map((params) => [params.guest.vmid, params.ha]),
    ).toEqual([[202, true]]);
    await waitFor(async () => (await qmigrates(202)).every((task) => task.exitstatus === 'OK'), patience('the relocation task ended'));
  });

  it('relocates HA containers, also when asked to migrate them: a stopped one moves and stays stopped, a running one shuts down, moves, and the HA manager starts it there', async () => {
    await haGuest(201, b, 'b', { type: 'lxc' });
    expect(dataOf(await call(t, 'POST', '/cluster/ha/resources/ct:201/migrate', { form: { node: 'c' } }))).toEqual({
      sid: 'ct:201',
      'requested-node': 'c',
    });
    await waitFor(
      async () => (await nodeOf(201)) === 'c' && (await vzmigrates(201)).every((task) => task.exitstatus === 'OK'),
      patience('ct:201 on c'),
    );
    expect(c.running.has(201)).toBe(false);

    await haGuest(203, b, 'b', { type: 'lxc', started: true });
    expect(dataOf(await call(t, 'POST', '/cluster/ha/resources/ct:203/migrate', { form: { node: 'c' } }))).toEqual({
      sid: 'ct:203',
      'requested-node': 'c',
    });
    await waitFor(async () => (await nodeOf(203)) === 'c' && c.running.has(203), patience('ct:203 running on c'));
    expect(b.asked.filter((request) => request.command === 'guest.shutdown').map((request) => request.params)).toEqual([
      { type: 'lxc', vmid: 203, timeout: 180, forceStop: true },
    ]);
    expect(
      c.asked
        .filter(
          (request) => request.command === 'guest.migrate.receive' && (request.params as { guest: { vmid: number } }).guest.vmid === 203,
        )
        .map((request) => (request.params as { online: boolean }).online),
    ).toEqual([false]);
    expect(
      c.asked
        .filter((request) => request.command === 'guest.start' && (request.params as { guest: { vmid: number } }).guest.vmid === 203)
        .map((request) => (request.params as { ha?: boolean }).ha),
    ).toEqual([true]);
    await waitFor(async () => (await vzmigrates(203)).every((task) => task.exitstatus === 'OK'), patience('the relocation task ended'));
  });

  it('moves a VM to the node its group prefers unless nofailback, and off a node its restricted group does not allow', async () => {
    // Running on b first, then put in their groups.
    for (const vmid of [210, 211, 212]) await haGuest(vmid, b, 'b');
    await t.dataSource.query(
      `UPDATE "ha_resources" SET "group" = CASE "vmid" WHEN 210 THEN 'prefer-c-stay' WHEN 211 THEN 'prefer-c' ELSE 'only-c' END WHERE "vmid" IN (210, 211, 212)`,
    );
    await waitFor(
      async () => (await nodeOf(211)) === 'c' && c.running.has(211) && (await nodeOf(212)) === 'c' && c.running.has(212),
      patience('vm:211 and vm:212 moved to c'),
    );
    expect((await qmigrates(211))[0]).toMatchObject({ node: 'b', user: 'root@pam' });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await nodeOf(210)).toBe('b');
    expect(await qmigrates(210)).toEqual([]);
  });

  it('relocates a running container to the node its group prefers', async () => {
    await haGuest(220, b, 'b', { type: 'lxc', started: true });
    await t.dataSource.query(`UPDATE "ha_resources" SET "group" = 'prefer-c' WHERE "vmid" = 220`);
    await waitFor(async () => (await nodeOf(220)) === 'c' && c.running.has(220), patience('ct:220 moved to c and started there'));
    expect((await vzmigrates(220))[0]).toMatchObject({ node: 'b', user: 'root@pam' });
  });
});
