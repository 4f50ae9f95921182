import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { FakeGuestNode } from '../../../test-support/fake-guest-node.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';
import { GuestSnapshotRow } from './guest-snapshot.entity.js';
import type { SnapshotEntry } from './snapshot.endpoints.js';

describe('guest snapshots through the API (/nodes/{node}/<qemu|lxc>/{vmid}/snapshot)', () => {
  let t: TestApp;
  const pve1 = new FakeGuestNode(4242);
  const pve2 = new FakeGuestNode(4343);

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    pve1.agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), { answer: (request) => pve1.answer(request) });
    pve2.agent = await onlineAgent(t, 'pve2', await joinNode(t, 'pve2'), { answer: (request) => pve2.answer(request) });
    for (const [type, vmid, form] of [
      ['qemu', 100, { name: 'web1', memory: 512, scsi0: 'local:1' }],
      ['qemu', 101, { scsi0: 'local:1,format=raw' }],
      ['lxc', 200, { hostname: 'ct1', rootfs: 'local:1', ostemplate: 'local:vztmpl/debian-12.tar.zst' }],
    ] as const) {
      expect(await done(dataOf<string>(await call(t, 'POST', `/nodes/pve1/${type}`, { form: { vmid, ...form } })))).toBe('OK');
    }
  });
  afterAll(async () => {
    pve1.agent.close();
    pve2.agent.close();
    await t.close();
  });
  beforeEach(() => {
    pve1.asked.length = 0;
    pve1.failing.clear();
  });

  const done = (upid: string) => finished(t, 'pve1', upid);
  const path = (vmid: number, rest = '', type = 'qemu') => `/nodes/pve1/${type}/${vmid}${rest}`;
  const snapshot = (vmid: number, form: Form, type = 'qemu') => call(t, 'POST', path(vmid, '/snapshot', type), { form });
  const list = async (vmid: number, type = 'qemu') => dataOf<SnapshotEntry[]>(await call(t, 'GET', path(vmid, '/snapshot', type)));
  const config = async (vmid: number, type = 'qemu') => dataOf<Record<string, string>>(await call(t, 'GET', path(vmid, '/config', type)));
  const asked = () => pve1.asked.map((request) => request.command);
  const params = (command: string) =>
    pve1.asked.find((request) => request.command === command)?.params as Record<string, unknown> | undefined;

  it("takes a VM's snapshot as a qmsnapshot task: the list shows it, and the config names it as parent", async () => {
    const upid = dataOf<string>(await snapshot(100, { snapname: 'first', description: 'before the upgrade', vmstate: 1 }));
    expect(upid).toMatch(/:qmsnapshot:100:root@pam:$/);
    expect(await done(upid)).toBe('OK');
    expect(params('guest.snapshot.create')).toMatchObject({
      snapname: 'first',
      vmstate: false,
      guest: { vmid: 100, volumes: [{ key: 'scsi0', format: 'qcow2' }] },
    });
    const [first, current] = await list(100);
    expect(first).toEqual({ name: 'first', description: 'before the upgrade', snaptime: expect.any(Number), vmstate: 0 });
    expect(current).toEqual({
      name: 'current',
      description: 'You are here!',
      parent: 'first',
      running: 0,
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(await config(100)).toMatchObject({ parent: 'first', memory: '512' });
    const log = dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/pve1/tasks/${encodeURIComponent(upid)}/log`)).map((line) => line.t);
    expect(log).toContain('VM 100 is not running: the snapshot holds its disks only');
  });

  it("refuses bad names, a used name, an unknown guest and a raw disk before any task, in PVE's words", async () => {
    expectError(await snapshot(100, { snapname: 'current' }), 400, "unable to use snapshot name 'current' (reserved name)", 'snapname');
    expectError(await snapshot(100, { snapname: 'no spaces' }), 400, 'must be a snapshot name', 'snapname');
    expectError(await snapshot(100, { snapname: 'x'.repeat(41) }), 400, 'at most 40', 'snapname');
    expectError(await snapshot(100, { snapname: 'first' }), 409, "snapshot name 'first' already used");
    expectError(await snapshot(999, { snapname: 'first' }), 404, 'VM 999 does not exist');
    expectError(await snapshot(101, { snapname: 'first' }), 409, 'snapshot feature is not available');
    expectError(
      await snapshot(200, { snapname: 'vzdump' }, 'lxc'),
      400,
      "unable to use snapshot name 'vzdump' (reserved name)",
      'snapname',
    );
    expectError(await snapshot(200, { snapname: 'ct', vmstate: 1 }, 'lxc'), 400, 'vmstate', 'vmstate');
    expect(asked()).toEqual([]);
  });

  it("saves a running VM's state with vmstate=1; the tree runs through parent", async () => {
    expect(await done(dataOf<string>(await call(t, 'POST', path(100, '/status/start'))))).toBe('OK');
    expect(await done(dataOf<string>(await snapshot(100, { snapname: 'second', vmstate: 1 })))).toBe('OK');
    expect(params('guest.snapshot.create')).toMatchObject({ snapname: 'second', vmstate: true });
    const entries = await list(100);
    expect(entries.map(({ name, parent, vmstate, running }) => ({ name, parent, vmstate, running }))).toEqual([
      { name: 'first', parent: undefined, vmstate: 0, running: undefined },
      { name: 'second', parent: 'first', vmstate: 1, running: undefined },
      { name: 'current', parent: 'second', vmstate: undefined, running: 1 },
    ]);
  });

  it('refuses to migrate a VM with snapshots: they live in its images on its node', async () => {
    expectError(
      await call(t, 'POST', path(100, '/migrate'), { form: { target: 'pve2', online: 1, 'with-local-disks': 1 } }),
      409,
      'VM 100 has snapshots (first, second): migrating them is not supported yet',
    );
    expect(pve2.asked).toEqual([]);
  });

  it("shows a snapshot's config as it was, and changes its description", async () => {
    dataOf(await call(t, 'PUT', path(100, '/config'), { form: { memory: 1024 } }));
    const taken = dataOf<Record<string, string | number>>(await call(t, 'GET', path(100, '/snapshot/second/config')));
    expect(taken).toMatchObject({ memory: '512', parent: 'first', snaptime: expect.any(Number) });
    expect(taken['digest']).toBeUndefined();
    expect(dataOf(await call(t, 'PUT', path(100, '/snapshot/second/config'), { form: { description: 'with RAM' } }))).toBeNull();
    expect((await list(100)).find((entry) => entry.name === 'second')?.description).toBe('with RAM');
    expect(dataOf(await call(t, 'GET', path(100, '/snapshot/second')))).toEqual([{ cmd: 'rollback' }, { cmd: 'config' }]);
    expectError(await call(t, 'GET', path(100, '/snapshot/nothing/config')), 404, "snapshot 'nothing' of VM 100 does not exist");
  });

  it('rolls back a running VM: stopped first, its volumes and config returned to the snapshot, which becomes its parent', async () => {
    const upid = dataOf<string>(await call(t, 'POST', path(100, '/snapshot/first/rollback')));
    expect(upid).toMatch(/:qmrollback:100:root@pam:$/);
    expect(await done(upid)).toBe('OK');
    expect(asked()).toEqual(['guest.stop', 'guest.snapshot.rollback']);
    expect(params('guest.snapshot.rollback')).toMatchObject({ snapname: 'first', vmstate: false, start: false, guest: { memoryMiB: 512 } });
    const after = await config(100);
    expect(after).toMatchObject({ memory: '512', parent: 'first' });
    expect(dataOf<{ lock?: string }>(await call(t, 'GET', path(100, '/status/current'))).lock).toBeUndefined();
  });

  it("rolls back to a snapshot with the VM's state, telling the agent to resume it", async () => {
    expect(await done(dataOf<string>(await call(t, 'POST', path(100, '/snapshot/second/rollback'), { form: { start: 1 } })))).toBe('OK');
    expect(params('guest.snapshot.rollback')).toMatchObject({ snapname: 'second', vmstate: true, start: true });
    expect((await config(100))['parent']).toBe('second');
  });

  it('refuses a rollback or delete of a snapshot that does not exist (404)', async () => {
    expectError(await call(t, 'POST', path(100, '/snapshot/nothing/rollback')), 404, "snapshot 'nothing' of VM 100 does not exist");
    expectError(await call(t, 'DELETE', path(100, '/snapshot/nothing')), 404, "snapshot 'nothing' of VM 100 does not exist");
  });

  it('writes nothing when the agent fails, and leaves the VM unlocked', async () => {
    pve1.failing.add('guest.snapshot.create');
    expect(await done(dataOf<string>(await snapshot(100, { snapname: 'broken' })))).toContain('guest.snapshot.create failed on purpose');
    expect((await list(100)).map((entry) => entry.name)).toEqual(['first', 'second', 'current']);
    expect((await config(100))['parent']).toBe('second');
    expect(dataOf<{ lock?: string }>(await call(t, 'GET', path(100, '/status/current'))).lock).toBeUndefined();
  });

  it('deletes a snapshot: its child takes its parent; one whose data cannot go is kept unless force=1', async () => {
    const upid = dataOf<string>(await call(t, 'DELETE', path(100, '/snapshot/first')));
    expect(upid).toMatch(/:qmdelsnapshot:100:root@pam:$/);
    expect(await done(upid)).toBe('OK');
    expect((await list(100)).map(({ name, parent }) => ({ name, parent }))).toEqual([
      { name: 'second', parent: undefined },
      { name: 'current', parent: 'second' },
    ]);
    pve1.failing.add('guest.snapshot.delete');
    expect(await done(dataOf<string>(await call(t, 'DELETE', path(100, '/snapshot/second'))))).toContain('failed on purpose');
    expect((await list(100)).map((entry) => entry.name)).toEqual(['second', 'current']);
    expect(await done(dataOf<string>(await call(t, 'DELETE', path(100, '/snapshot/second'), { form: { force: 1 } })))).toBe('OK');
    expect(await list(100)).toEqual([expect.objectContaining({ name: 'current', description: 'You are here!' })]);
    expect((await config(100))['parent']).toBeUndefined();
  });

  it('answers the feature check as PVE: by the volumes, a VM with the nodes it could run on', async () => {
    const feature = async (vmid: number, query: string, type = 'qemu') =>
      dataOf(await call(t, 'GET', path(vmid, '/feature', type), { query }));
    expect(await feature(100, 'feature=snapshot')).toEqual({ hasFeature: 1, nodes: ['pve1'] });
    expect(await feature(101, 'feature=snapshot')).toEqual({ hasFeature: 0, nodes: ['pve1'] });
    expect(await feature(100, 'feature=clone')).toEqual({ hasFeature: 0, nodes: ['pve1'] });
    expect(await feature(101, 'feature=copy')).toEqual({ hasFeature: 1, nodes: ['pve1'] });
    expect(await feature(200, 'feature=snapshot', 'lxc')).toEqual({ hasFeature: 1 });
    expectError(await call(t, 'GET', path(100, '/feature'), { query: 'feature=move' }), 400, 'must be snapshot, clone or copy', 'feature');
  });

  it('refuses a container clone with a format (its volumes have none) with 400 naming it, and makes nothing', async () => {
    const res = await call(t, 'POST', path(200, '/clone', 'lxc'), { form: { newid: 202, format: 'raw' } });
    expectError(res, 400, "a container's volumes have no image format: clone it without format", 'format');
    expect((await call(t, 'GET', path(202, '/config', 'lxc'))).status).toBe(404);
  });

  it("takes a container's snapshot as vzsnapshot; a clone has no parent, and a destroy removes the snapshots", async () => {
    const upid = dataOf<string>(await snapshot(200, { snapname: 'ct1' }, 'lxc'));
    expect(upid).toMatch(/:vzsnapshot:200:root@pam:$/);
    expect(await done(upid)).toBe('OK');
    expect((await list(200, 'lxc')).at(-1)).toEqual({
      name: 'current',
      description: 'You are here!',
      parent: 'ct1',
      digest: expect.any(String),
    });
    expect(await done(dataOf<string>(await call(t, 'POST', path(200, '/clone', 'lxc'), { form: { newid: 201 } })))).toBe('OK');
    expect((await config(201, 'lxc'))['parent']).toBeUndefined();
    expect(await done(dataOf<string>(await call(t, 'DELETE', path(200, '', 'lxc'))))).toBe('OK');
    expect(await t.dataSource.manager.countBy(GuestSnapshotRow, { vmid: 200 })).toBe(0);
  });
});
