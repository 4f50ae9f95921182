import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { events, joinNode } from '../../../test-support/node-fixture.js';
import { closeWithFakeNodes, FakeGuestNode as FakeNode, startWithFakeNodes } from '../../../test-support/fake-guest-node.js';
import { finished } from '../../../test-support/task-fixture.js';
import type { TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';

describe('VM migration through the API (/nodes/{node}/qemu/{vmid}/migrate)', () => {
  let t: TestApp;
  const pve1 = new FakeNode(1111);
  const pve2 = new FakeNode(2222);

  beforeAll(async () => {
    t = await startWithFakeNodes([ClusterModule, TasksModule, GuestsModule], { pve1, pve2 });
    await joinNode(t, 'pve3');
    await t.dataSource.query(
      `INSERT INTO "storages" ("storage", "type", "path", "content", "nodes", "shared", "disable") VALUES ('fast', 'dir', '/srv/fast', '{images}', NULL, false, false), ('isos', 'dir', '/srv/isos', '{iso}', NULL, false, false), ('nfs', 'dir', '/mnt/pve/nfs', '{images,iso}', NULL, true, false)`,
    );
    for (const [vmid, form] of [
      [100, { name: 'web1', scsi0: 'local:1', net0: 'virtio,bridge=vmbr0' }],
      [101, { scsi0: 'local:1', ide2: 'isos:iso/debian.iso,media=cdrom' }],
      [102, { scsi0: 'nfs:1', scsi1: 'local:1' }],
    ] as const) {
      expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid, ...form } })))).toBe('OK');
    }
  });
  afterAll(() => closeWithFakeNodes(t, { pve1, pve2 }));
  beforeEach(() => [pve1, pve2].forEach((node) => node.reset()));

  const migrate = (vmid: number, form: Form, node = 'pve1') => call(t, 'POST', `/nodes/${node}/qemu/${vmid}/migrate`, { form });
  const config = async (node: string, vmid: number) =>
    dataOf<Record<string, string>>(await call(t, 'GET', `/nodes/${node}/qemu/${vmid}/config`));
  const guestEvents = async () =>
    (await events(t))
      .filter((event) => event.event.startsWith('vm-') && event.event !== 'vm-create')
      .map((event) => `${event.event}@${event.node}`);

  it("refuses what cannot migrate before any task, with PVE's messages where it has them", async () => {
    expectError(await migrate(999, { target: 'pve2' }), 404, 'VM 999 does not exist');
    expectError(await migrate(100, { target: 'pve1' }, 'pve2'), 404, "VM 100 does not exist on node 'pve2' (it is on node 'pve1')");
    expectError(await migrate(100, { target: 'nope' }), 404, "node 'nope' does not exist");
    expectError(await migrate(100, { target: 'pve1' }), 400, 'target is local node.', 'target');
    expectError(await migrate(100, { target: 'pve3' }), 503, "node 'pve3' is offline");
    expectError(await migrate(100, { target: 'pve2', targetstorage: 'nosuch' }), 404, "storage 'nosuch' does not exist");
    expectError(
      await migrate(100, { target: 'pve2', targetstorage: 'isos' }),
      400,
      "storage 'isos' does not hold VM disks",
      'targetstorage',
    );
    expectError(
      await migrate(100, { target: 'pve2', targetstorage: 'local:fast,local:nfs' }),
      400,
      "maps storage 'local' twice",
      'targetstorage',
    );
    expectError(await migrate(100, { target: 'pve2', targetstorage: 'local:' }), 400, 'must be a storage', 'targetstorage');
    expectError(
      await migrate(100, { target: 'pve2', storage: 'fast', targetstorage: 'fast' }),
      400,
      'give storage or targetstorage, not both',
      'storage',
    );
    expectError(await migrate(101, { target: 'pve2' }), 409, "can't migrate local cdrom drive ide2 (isos:iso/debian.iso): eject it first");
    expect(
      await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 103, scsi0: 'local:1' } }))),
    ).toBe('OK');
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/103/template')))).toBe('OK');
    expectError(await migrate(103, { target: 'pve2', online: 1 }), 409, 'VM 103 is a template: templates migrate offline (online=0)');
    for (const node of [pve1, pve2]) node.asked.length = 0;

    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/100/status/start')))).toBe('OK');
    expectError(await migrate(100, { target: 'pve2' }), 409, "can't migrate running VM without --online");
    expectError(
      await migrate(100, { target: 'pve2', online: 1 }),
      400,
      "can't live migrate attached local disks without with-local-disks option",
      'with-local-disks',
    );
    expect([...pve1.commands(), ...pve2.commands()]).toEqual(['guest.start']);
  });

  it('migrates the running VM live: receive on the target, send on the source, finish on the target; the VM runs on the target, with no stop or start event', async () => {
    const upid = dataOf<string>(await migrate(100, { target: 'pve2', online: 1, 'with-local-disks': 1 }));
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:qmigrate:100:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');

    expect(pve2.commands()).toEqual(['guest.migrate.receive', 'guest.migrate.finish']);
    expect(pve1.commands()).toEqual(['guest.migrate.send']);
    const [receive, finish] = pve2.asked;
    expect(receive?.params).toMatchObject({
      guest: {
        vmid: 100,
        name: 'web1',
        volumes: [{ key: 'scsi0', volid: 'local:100/vm-100-disk-0.qcow2', path: '/var/lib/vz/images/100/vm-100-disk-0.qcow2' }],
      },
      copy: ['scsi0'],
      online: true,
      listen: '127.0.0.1',
    });
    expect(pve1.asked[0]?.params).toMatchObject({
      guest: { vmid: 100 },
      copy: ['scsi0'],
      online: true,
      target: {
        node: 'pve2',
        address: '127.0.0.1',
        nbdPort: 40123,
        migrationPort: 40124,
        volids: { scsi0: 'local:100/vm-100-disk-0.qcow2' },
      },
    });
    expect(finish?.params).toMatchObject({ guest: { vmid: 100 }, copy: ['scsi0'], state: 'running' });

    expect(await config('pve2', 100)).toMatchObject({ name: 'web1', scsi0: 'local:100/vm-100-disk-0.qcow2,size=1G' });
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/100/config'), 404, "VM 100 does not exist on node 'pve1' (it is on node 'pve2')");
    const current = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/qemu/100/status/current'));
    expect(current).toMatchObject({ status: 'running', qmpstatus: 'running', pid: 2222 });
    expect(current).not.toHaveProperty('lock');
    expect(dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/cluster/resources?type=vm'))).toContainEqual(
      expect.objectContaining({ vmid: 100, node: 'pve2', status: 'running' }),
    );
    expect(await guestEvents()).toEqual(['vm-start@pve1']);

    const log = dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/pve1/tasks/${encodeURIComponent(upid)}/log?limit=0`)).map(
      (line) => line.t,
    );
    expect(log[0]).toBe("starting online migration of VM 100 to node 'pve2' (127.0.0.1)");
    expect(log).toContainEqual(expect.stringMatching(/^migration finished successfully \(duration \d\d:\d\d:\d\d\)$/));
  });

  it('keeps the VM on its node, running, when the send fails, and clears the target with guest.migrate.abort', async () => {
    pve2.failing.add('guest.migrate.send');
    expect(
      await finished(t, 'pve2', dataOf<string>(await migrate(100, { target: 'pve1', online: 1, 'with-local-disks': 1 }, 'pve2'))),
    ).toBe('guest.migrate.send failed on purpose');
    expect(pve1.commands()).toEqual(['guest.migrate.receive', 'guest.migrate.abort']);
    expect(pve2.commands()).toEqual(['guest.migrate.send']);
    const current = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/qemu/100/status/current'));
    expect(current).toMatchObject({ status: 'running', pid: 2222 });
    expect(current).not.toHaveProperty('lock');
    expect(await guestEvents()).toEqual(['vm-start@pve1']);
  });

  it('migrates a stopped VM offline when asked online, onto the storage targetstorage maps it to, leaving a disk on shared storage where it is', async () => {
    const upid = dataOf<string>(await migrate(102, { target: 'pve2', online: 1, targetstorage: 'local:fast' }));
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(pve2.asked[0]?.params).toMatchObject({
      online: false,
      copy: ['scsi1'],
      guest: {
        volumes: [
          { key: 'scsi0', volid: 'nfs:102/vm-102-disk-0.qcow2' },
          { key: 'scsi1', volid: 'fast:102/vm-102-disk-1.qcow2', path: '/srv/fast/images/102/vm-102-disk-1.qcow2' },
        ],
      },
    });
    expect(pve1.asked[0]?.params).toMatchObject({
      online: false,
      copy: ['scsi1'],
      target: { volids: { scsi1: 'fast:102/vm-102-disk-1.qcow2' } },
    });
    expect(pve2.asked[1]?.params).toMatchObject({ state: 'stopped' });
    expect(await config('pve2', 102)).toMatchObject({
      scsi0: 'nfs:102/vm-102-disk-0.qcow2,size=1G',
      scsi1: 'fast:102/vm-102-disk-1.qcow2,size=1G',
    });
    const log = dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/pve1/tasks/${encodeURIComponent(upid)}/log?limit=0`)).map(
      (line) => line.t,
    );
    expect(log.slice(0, 3)).toEqual([
      "VM isn't running. Doing offline migration instead.",
      "starting offline migration of VM 102 to node 'pve2' (127.0.0.1)",
      'moving scsi1 (local:102/vm-102-disk-1.qcow2 -> fast:102/vm-102-disk-1.qcow2)',
    ]);
  });

  it('answers the preconditions: the running state, the local disks, the nodes that have its storages', async () => {
    const answer = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/qemu/102/migrate'));
    expect(answer).toEqual({
      running: 0,
      allowed_nodes: ['pve1', 'pve3'],
      not_allowed_nodes: {},
      local_disks: [{ volid: 'fast:102/vm-102-disk-1.qcow2', size: 1024 ** 3, cdrom: 0, is_unused: 0 }],
      local_resources: [],
      'mapped-resources': [],
      'mapped-resource-info': {},
      'has-dbus-vmstate': 0,
    });
    await t.dataSource.query(`UPDATE "storages" SET "nodes" = '{pve2}' WHERE "storage" = 'nfs'`);
    expect(dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/qemu/102/migrate?target=pve1'))).toMatchObject({
      allowed_nodes: [],
      not_allowed_nodes: { pve1: { unavailable_storages: ['nfs'] } },
    });
    expect(dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve2/qemu/100/migrate'))).toMatchObject({ running: 1 });
  });
});
