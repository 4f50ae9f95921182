import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { events } from '../../../test-support/node-fixture.js';
import { closeWithFakeNodes, FakeGuestNode as FakeNode, startWithFakeNodes } from '../../../test-support/fake-guest-node.js';
import { finished } from '../../../test-support/task-fixture.js';
import type { TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';

describe('container migration through the API (/nodes/{node}/lxc/{vmid}/migrate)', () => {
  let t: TestApp;
  const pve1 = new FakeNode(1111);
  const pve2 = new FakeNode(2222);

  beforeAll(async () => {
    t = await startWithFakeNodes([ClusterModule, TasksModule, GuestsModule], { pve1, pve2 });
    await t.dataSource.query(
      `INSERT INTO "storages" ("storage", "type", "path", "content", "nodes", "shared", "disable") VALUES ('ctfast', 'dir', '/srv/ctfast', '{rootdir}', NULL, false, false), ('vmonly', 'dir', '/srv/vmonly', '{images}', NULL, false, false)`,
    );
    for (const vmid of [200, 201]) {
      const form = { vmid, hostname: `ct${vmid}`, ostemplate: 'local:vztmpl/busybox.tar.gz', rootfs: 'local:1', mp0: 'local:1,mp=/srv' };
      expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/lxc', { form })))).toBe('OK');
    }
  });
  afterAll(() => closeWithFakeNodes(t, { pve1, pve2 }));
  beforeEach(() => [pve1, pve2].forEach((node) => node.reset()));

  const migrate = (vmid: number, form: Form, node = 'pve1') => call(t, 'POST', `/nodes/${node}/lxc/${vmid}/migrate`, { form });
  const logOf = async (node: string, upid: string) =>
    dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/log?limit=0`)).map((line) => line.t);
  const ctEvents = async () =>
    (await events(t))
      .filter((event) => event.event.startsWith('ct-') && event.event !== 'ct-create')
      .map((event) => `${event.event}@${event.node}`);

  it("refuses what cannot migrate before any task, with PVE's messages", async () => {
    expectError(await migrate(999, { target: 'pve2' }), 404, 'CT 999 does not exist');
    expectError(await migrate(200, { target: 'pve1' }, 'pve2'), 404, "CT 200 does not exist on node 'pve2' (it is on node 'pve1')");
    expectError(await migrate(200, { target: 'pve1' }), 400, 'target is local node.', 'target');
    expectError(await migrate(200, { target: 'nope' }), 404, "node 'nope' does not exist");
    expectError(
      await migrate(200, { target: 'pve2', 'target-storage': 'vmonly' }),
      400,
      "storage 'vmonly' does not hold container volumes",
      'target-storage',
    );
    expectError(await migrate(200, { target: 'pve2', 'target-storage': 'local:' }), 400, 'must be a storage', 'target-storage');
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/lxc/201/status/start')))).toBe('OK');
    expectError(await migrate(201, { target: 'pve2' }), 409, 'running container can only be migrated in restart mode');
    expectError(await migrate(201, { target: 'pve2', online: 1, restart: 1 }), 409, 'lxc live migration is currently not implemented');
    expect([...pve1.commands(), ...pve2.commands()]).toEqual(['guest.start']);
  });

  it('moves a stopped container offline with its volumes, onto the storage target-storage maps them to; online=1 changes nothing for a stopped one', async () => {
    const upid = dataOf<string>(await migrate(200, { target: 'pve2', online: 1, 'target-storage': 'local:ctfast' }));
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:vzmigrate:200:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(pve2.commands()).toEqual(['guest.migrate.receive', 'guest.migrate.finish']);
    expect(pve1.commands()).toEqual(['guest.migrate.send']);
    expect(pve2.asked[0]?.params).toMatchObject({
      online: false,
      copy: ['mp0', 'rootfs'],
      guest: {
        type: 'lxc',
        vmid: 200,
        volumes: [
          { key: 'rootfs', volid: 'ctfast:200/subvol-200-disk-0', format: 'subvol' },
          { key: 'mp0', volid: 'ctfast:200/subvol-200-disk-1' },
        ],
      },
    });
    expect(pve1.asked[0]?.params).toMatchObject({
      online: false,
      copy: ['mp0', 'rootfs'],
      guest: { volumes: [{ volid: 'local:200/subvol-200-disk-0' }, { volid: 'local:200/subvol-200-disk-1' }] },
    });
    expect(pve2.asked[1]?.params).toMatchObject({ state: 'stopped' });
    expect(dataOf<Record<string, string>>(await call(t, 'GET', '/nodes/pve2/lxc/200/config'))).toMatchObject({
      rootfs: 'ctfast:200/subvol-200-disk-0,size=1G',
      mp0: 'ctfast:200/subvol-200-disk-1,mp=/srv,size=1G',
    });
    expect(dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/lxc/200/status/current'))).toMatchObject({
      status: 'stopped',
    });
    expect((await logOf('pve1', upid))[0]).toBe("starting offline migration of CT 200 to node 'pve2' (127.0.0.1)");
  });

  it('moves a running container in restart mode: shut down (timeout, then stopped) on the source, moved offline, started on the target', async () => {
    const upid = dataOf<string>(await migrate(201, { target: 'pve2', restart: 1, timeout: 30 }));
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(pve1.commands()).toEqual(['guest.shutdown', 'guest.migrate.send']);
    expect(pve1.asked[0]?.params).toEqual({ type: 'lxc', vmid: 201, timeout: 30, forceStop: true });
    expect(pve1.asked[1]?.params).toMatchObject({ online: false, copy: ['mp0', 'rootfs'] });
    expect(pve2.commands()).toEqual(['guest.migrate.receive', 'guest.migrate.finish', 'guest.start']);
    expect(pve2.asked[2]?.params).toMatchObject({
      guest: { type: 'lxc', vmid: 201, volumes: [{ volid: 'local:201/subvol-201-disk-0' }, { volid: 'local:201/subvol-201-disk-1' }] },
    });
    const current = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/lxc/201/status/current'));
    expect(current).toMatchObject({ status: 'running', pid: 2222 });
    expect(current).not.toHaveProperty('lock');
    expect(await ctEvents()).toEqual(['ct-start@pve1', 'ct-stop@pve1', 'ct-start@pve2']);
    const log = await logOf('pve1', upid);
    expect(log[0]).toBe('shutdown CT 201');
    expect(log).toContain("start CT 201 on node 'pve2'");
  });

  it('keeps the container on its node when the send fails, and clears the target', async () => {
    pve2.failing.add('guest.migrate.send');
    expect(await finished(t, 'pve2', dataOf<string>(await migrate(200, { target: 'pve1' }, 'pve2')))).toBe(
      'guest.migrate.send failed on purpose',
    );
    expect(pve1.commands()).toEqual(['guest.migrate.receive', 'guest.migrate.abort']);
    expect(dataOf<Record<string, string>>(await call(t, 'GET', '/nodes/pve2/lxc/200/config'))).toMatchObject({
      rootfs: 'ctfast:200/subvol-200-disk-0,size=1G',
    });
    expect(dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/lxc/200/status/current'))).not.toHaveProperty('lock');
  });
});
