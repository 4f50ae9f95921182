import type { GuestRuntime, RequestFrame } from '@corral/protocol';
import { waitFor, type FakeAgent, type FakeAnswer } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant, type Form } from '../../../test-support/access-fixture.js';
import { events, joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { PoolsModule } from '../../pools/pools.module.js';
import { GuestsModule } from '../guests.module.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { ReplicaLiveness } from '../../tasks/replica-liveness.js';
import { TasksRepository } from '../../tasks/tasks.repository.js';

/**
 * A fake agent that runs guests the way a driver reports them: a start sends the vm-start event and
 * the runtime report before its result, as the real agent's guest commands do.
 */
function guestAgentAnswers(agent: () => FakeAgent, asked: RequestFrame[], failing: Set<string>) {
  const running = new Map<number, GuestRuntime>();
  const changed = (vmid: number, event: 'vm-start' | 'vm-stop') => {
    agent().send({ type: 'event', event, vmid, timestamp: new Date().toISOString() });
    agent().send({ type: 'report', payload: { kind: 'runtime', guests: [...running.values()] } });
  };
  return (request: RequestFrame): FakeAnswer => {
    asked.push(request);
    if (failing.has(request.command)) return { failure: 'failed', message: `${request.command} failed on purpose` };
    const params = request.params as { guest?: { vmid: number }; vmid?: number };
    const vmid = params.guest?.vmid ?? params.vmid ?? 0;
    if (request.command === 'guest.start') {
      running.set(vmid, { vmid, type: 'qemu', status: 'running', pid: 4242, uptime: 1, cpu: 0.01, mem: 64 * 1024 * 1024 });
      changed(vmid, 'vm-start');
    } else if (request.command === 'guest.stop' && running.delete(vmid)) {
      changed(vmid, 'vm-stop');
    } else if (request.command === 'guest.monitor') {
      return { result: `ran ${String((request.params as { command: string }).command)}` };
    }
    return { result: null };
  };
}

describe('VMs through the API (/nodes/{node}/qemu)', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];
  const failing = new Set<string>();

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, PoolsModule] });
    const credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, { answer: guestAgentAnswers(() => agent, asked, failing) });
    await joinNode(t, 'pve2');
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });
  beforeEach(() => {
    asked.length = 0;
    failing.clear();
  });

  const create = (form: Form) => call(t, 'POST', '/nodes/pve1/qemu', { form });
  const action = async (vmid: number, what: string, form: Form = {}) =>
    finished(t, 'pve1', dataOf<string>(await call(t, 'POST', `/nodes/pve1/qemu/${vmid}/status/${what}`, { form })));
  const config = async (vmid: number) => dataOf<Record<string, string>>(await call(t, 'GET', `/nodes/pve1/qemu/${vmid}/config`));

  it('creates a VM: the disk named and allocated by the agent, a MAC generated, a vm-create event once it exists', async () => {
    const upid = dataOf<string>(
      await create({
        vmid: 100,
        name: 'web1',
        memory: 2048,
        cores: 2,
        cpu: 'x86-64-v2-AES',
        ostype: 'l26',
        scsi0: 'local:32',
        net0: 'virtio,bridge=vmbr0',
      }),
    );
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:qmcreate:100:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');

    const created = await config(100);
    expect(created).toMatchObject({
      name: 'web1',
      memory: '2048',
      cores: 2,
      cpu: 'x86-64-v2-AES',
      ostype: 'l26',
      scsi0: 'local:100/vm-100-disk-0.qcow2,size=32G',
      boot: 'order=scsi0;net0',
    });
    expect(created['net0']).toMatch(/^virtio=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0$/);
    expect(created['digest']).toMatch(/^[0-9a-f]{40}$/);
    expect(created['smbios1']).toMatch(/^uuid=[0-9a-f-]{36}$/);

    const [request] = asked;
    expect(request?.command).toBe('guest.create');
    expect(request?.params).toMatchObject({
      allocate: ['scsi0'],
      guest: {
        vmid: 100,
        name: 'web1',
        memoryMiB: 2048,
        cores: 2,
        sockets: 1,
        cpu: 'x86-64-v2-AES',
        volumes: [
          {
            key: 'scsi0',
            volid: 'local:100/vm-100-disk-0.qcow2',
            path: '/var/lib/vz/images/100/vm-100-disk-0.qcow2',
            format: 'qcow2',
            size: 32 * 1024 ** 3,
          },
        ],
      },
    });
    expect((await events(t)).filter((event) => event.event === 'vm-create')).toHaveLength(1);
  });

  it('starts and stops it: the status follows the agent, with vm-start and vm-stop events; a second start is a 409', async () => {
    expect(await action(100, 'start')).toBe('OK');
    const current = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve1/qemu/100/status/current'));
    expect(current).toMatchObject({
      vmid: 100,
      name: 'web1',
      status: 'running',
      qmpstatus: 'running',
      pid: 4242,
      maxmem: 2048 * 1024 ** 2,
      cpus: 2,
      maxdisk: 32 * 1024 ** 3,
      ha: { managed: 0 },
    });
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/status/start'), 409, 'VM 100 is already running');

    const resources = dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/cluster/resources?type=vm'));
    expect(resources).toContainEqual(
      expect.objectContaining({ id: 'qemu/100', type: 'qemu', vmid: 100, name: 'web1', node: 'pve1', status: 'running', template: 0 }),
    );

    expect(await action(100, 'stop')).toBe('OK');
    expect(dataOf<{ status: string }>(await call(t, 'GET', '/nodes/pve1/qemu/100/status')).status).toBe('stopped');
    expect((await events(t)).map((event) => event.event).filter((event) => event.startsWith('vm-'))).toEqual([
      'vm-create',
      'vm-start',
      'vm-stop',
    ]);
  });

  it('refuses bad input before any task, naming the parameter', async () => {
    expectError(await create({ vmid: 101, net0: 'virtio,colour=blue' }), 400, "parameter 'net0': has an unknown item 'colour'");
    expectError(await create({ vmid: 101, net0: 'bridge=vmbr0' }), 400, "parameter 'net0': must start with a model");
    expectError(await create({ vmid: 101, scsi0: 'local' }), 400, "parameter 'scsi0'");
    expectError(await create({ vmid: 101, memory: 8 }), 400, "parameter 'memory': must be an integer from 16 to 4194304");
    expectError(await create({ vmid: 101, frobnicate: 1 }), 400, "unknown parameter 'frobnicate'");
    expectError(await create({ vmid: 101, scsi0: 'nosuch:8' }), 404, "storage 'nosuch' does not exist");
    expectError(await create({ vmid: 100 }), 409, 'VM 100 already exists');
    expect(asked).toEqual([]);
  });

  it('removes a VM whose create failed on the agent: nothing half created', async () => {
    failing.add('guest.create');
    const exit = await finished(t, 'pve1', dataOf<string>(await create({ vmid: 102, scsi0: 'local:1' })));
    expect(exit).toBe('guest.create failed on purpose');
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/102/config'), 404, 'VM 102 does not exist');
  });

  it('changes the config with a digest; a stale digest is a 409', async () => {
    const { digest = '' } = await config(100);
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { memory: 1024, tags: 'b,A;a', digest } }))).toBeNull();
    expect(await config(100)).toMatchObject({ memory: '1024', tags: 'a;b' });
    expectError(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { memory: 4096, digest } }), 409, 'has changed since digest');
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { delete: 'tags' } }))).toBeNull();
    expect(await config(100)).not.toHaveProperty('tags');
  });

  it("removes a lock as PVE's qm unlock does (delete=lock with skiplock, root@pam only); without skiplock a locked VM refuses changes", async () => {
    // Held by a backup task still running here: the lock is not stale, only a hand can remove it.
    const upid = 'UPID:pve1:0000B0B0:00000001:69000000:vzdump:100:root@pam:';
    const task = { upid, node: 'pve1', type: 'vzdump', id: '100', user: 'root@pam', pid: 0xb0b0, pstart: 1, starttime: 0x69000000 };
    await t.app.get(TasksRepository).insert({ ...task, replica: t.app.get(ReplicaLiveness).id });
    await t.dataSource.query(`UPDATE "guests" SET "lock" = 'backup', "lock_task" = $1 WHERE "vmid" = 100`, [upid]);
    await t.app.get(GuestView).reload(100);
    expectError(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { delete: 'lock' } }), 409, 'VM 100 is locked (backup)');
    await addUser(t, 'operator@pve', { password: 'operator-password' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'operator@pve', roleid: 'Administrator' });
    const operator = basic('operator@pve', 'operator-password');
    expectError(
      await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { delete: 'lock', skiplock: 1 }, as: operator }),
      400,
      'only root@pam may use this option',
      'skiplock',
    );
    expect(await config(100)).toMatchObject({ lock: 'backup' });
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { delete: 'lock', skiplock: 1 } }))).toBeNull();
    expect(await config(100)).not.toHaveProperty('lock');
    expect(await t.dataSource.query(`SELECT "lock", "lock_task" FROM "guests" WHERE "vmid" = 100`)).toEqual([
      { lock: null, lock_task: null },
    ]);
    await t.app.get(TasksRepository).end(upid, 'OK');
  });

  it('queues operations on one guest in order: a start asked for while it is still being created waits for it', async () => {
    const createUpid = dataOf<string>(await create({ vmid: 103, scsi0: 'local:1' }));
    const startUpid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/103/status/start'));
    expect(await finished(t, 'pve1', startUpid)).toBe('OK');
    expect(await finished(t, 'pve1', createUpid)).toBe('OK');
    expect(asked.map((request) => request.command)).toEqual(['guest.create', 'guest.start']);
    expectError(await call(t, 'DELETE', '/nodes/pve1/qemu/103'), 409, 'VM 103 is running');
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/qemu/103', { form: { force: 1 } })))).toBe('OK');
    expect(asked.map((request) => request.command)).toEqual(['guest.create', 'guest.start', 'guest.stop', 'guest.destroy']);
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/103/status/current'), 404, 'VM 103 does not exist');
    expect((await events(t)).map((event) => event.event).filter((event) => event === 'vm-delete')).toHaveLength(1);
  });

  it('runs the listed monitor commands on a running VM only', async () => {
    const commands = dataOf<{ command: string; privilege: string }[]>(await call(t, 'GET', '/nodes/pve1/qemu/100/monitor'));
    expect(commands).toContainEqual({ command: 'info status', privilege: 'Sys.Audit' });
    expect(commands).toContainEqual({ command: 'system_reset', privilege: 'Sys.Modify' });
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/monitor', { form: { command: 'info status' } }), 409, 'VM 100 is not running');
    expect(await action(100, 'start')).toBe('OK');
    expect(dataOf(await call(t, 'POST', '/nodes/pve1/qemu/100/monitor', { form: { command: '  info   status ' } }))).toBe(
      'ran info status',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu/100/monitor', { form: { command: 'migrate tcp:evil:1' } }),
      400,
      "'migrate tcp:evil:1' is not a monitor command Corral runs",
    );
    expect(await action(100, 'stop')).toBe('OK');
  });

  it('clones a stopped VM: new volumes, new MACs, the new name, a vm-create event; a running source or a taken newid is a 409', async () => {
    asked.length = 0;
    const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 120, name: 'web2' } }));
    expect(upid).toContain(':qmclone:100:');
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    const [source, copy] = [await config(100), await config(120)];
    expect(copy).toMatchObject({ name: 'web2', memory: source['memory'], scsi0: 'local:120/vm-120-disk-0.qcow2,size=32G' });
    expect(copy['net0']).not.toBe(source['net0']);
    expect(copy['smbios1']).not.toBe(source['smbios1']);
    expect(asked[0]).toMatchObject({
      command: 'guest.clone',
      params: {
        source: { vmid: 100 },
        target: { vmid: 120, name: 'web2', volumes: [{ key: 'scsi0', path: '/var/lib/vz/images/120/vm-120-disk-0.qcow2' }] },
      },
    });
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 120 } }), 409, 'VM 120 already exists');
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 121, full: 0 } }),
      400,
      'linked clones are made of templates, and VM 100 is none',
    );
    expect(await action(120, 'start')).toBe('OK');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/120/clone', { form: { newid: 122 } }), 409, 'VM 120 is running');
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/122/config'), 404, 'VM 122 does not exist');
    expect(await action(120, 'stop')).toBe('OK');
  });

  it('removes the new guest of a clone that failed on the agent, and leaves the source unlocked', async () => {
    failing.add('guest.clone');
    const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 125 } }));
    expect(await finished(t, 'pve1', upid)).toBe('guest.clone failed on purpose');
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/125/config'), 404, 'VM 125 does not exist');
    expect(await config(100)).not.toHaveProperty('lock');
    expect(await t.dataSource.query(`SELECT "event" FROM "events" WHERE "vmid" = 125`)).toEqual([]);
  });

  it('makes a template that cannot start', async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/100/template')))).toBe('OK');
    expect((await config(100))['template']).toBe(1);
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/status/start'), 409, 'VM 100 is a template');
  });

  it('makes a linked clone of a template by default, and keeps the template while the clone needs it', async () => {
    asked.length = 0;
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 130 } })))).toBe(
      'OK',
    );
    expect((await config(130))['scsi0']).toBe('local:100/vm-100-disk-0.qcow2/130/vm-130-disk-0.qcow2,size=32G');
    expect(asked[0]?.params).toMatchObject({
      target: {
        volumes: [{ key: 'scsi0', path: '/var/lib/vz/images/130/vm-130-disk-0.qcow2', base: '/var/lib/vz/images/100/vm-100-disk-0.qcow2' }],
      },
    });
    expectError(await call(t, 'DELETE', '/nodes/pve1/qemu/100'), 409, 'VM 100 is the base of the linked clones 130: destroy them first');
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/qemu/130')))).toBe('OK');
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 131, full: 0, storage: 'local' } }),
      400,
      'a linked clone stays on the storage of its template',
    );
  });

  it('creates a VM into a pool, which a user with VM.Allocate on the pool may do; an unknown pool creates nothing', async () => {
    expect(dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'dev' } }))).toBeNull();
    await addUser(t, 'dev@pve', { password: 'dev-password' });
    await grant(t, { path: '/pool/dev', type: 'user', ugid: 'dev@pve', roleid: 'PVEVMAdmin' });
    const asDev = basic('dev@pve', 'dev-password');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 150 }, as: asDev }), 403, 'permission denied');
    expect(
      await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 150, pool: 'dev' }, as: asDev }))),
    ).toBe('OK');
    expect(dataOf<{ members: { vmid?: number }[] }>(await call(t, 'GET', '/pools/dev')).members.map((member) => member.vmid)).toEqual([
      150,
    ]);
    expectError(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 151, pool: 'nosuch' } }), 404, "pool 'nosuch' does not exist");
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/151/config'), 404, 'VM 151 does not exist');
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/qemu/150')))).toBe('OK');
  });

  it('hands out distinct free ids from /cluster/nextid, and checks a given one', async () => {
    const ids = await Promise.all([1, 2, 3, 4].map(async () => dataOf<string>(await call(t, 'GET', '/cluster/nextid'))));
    expect(new Set(ids).size).toBe(4);
    // 100 exists; 102 and 103 were destroyed, so free again.
    expect(ids.map(Number).sort((a, b) => a - b)).toEqual([101, 102, 103, 104]);
    expectError(await call(t, 'GET', '/cluster/nextid?vmid=100'), 400, 'VM 100 already exists');
    expect(dataOf(await call(t, 'GET', '/cluster/nextid?vmid=4242'))).toBe('4242');
  });

  it("takes an agent's events only about the guests its node hosts: one about another node's VM or an unknown one is not recorded", async () => {
    const insert = (vmid: number, node: string) =>
      t.dataSource.query(`INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES ($1, 'qemu', $2, '{}', 'running')`, [
        vmid,
        node,
      ]);
    await insert(770, 'pve2');
    await insert(771, 'pve1');
    const now = new Date().toISOString();
    agent.send({ type: 'event', event: 'vm-stop', vmid: 770, timestamp: now });
    agent.send({ type: 'event', event: 'vm-start', vmid: 779, timestamp: now });
    // Frames are handled in order: once the last one is recorded, the two before it were handled.
    agent.send({ type: 'event', event: 'backup-start', vmid: 771, timestamp: now });
    const recorded = async () =>
      (await t.dataSource.query(`SELECT "event", "vmid" FROM "events" WHERE "vmid" IN (770, 771, 779) ORDER BY "seq"`)) as {
        event: string;
        vmid: number;
      }[];
    await waitFor(async () => (await recorded()).length > 0, { timeoutMs: 10_000, what: 'the backup-start of 771 recorded' });
    expect(await recorded()).toEqual([{ event: 'backup-start', vmid: 771 }]);
    expect(await t.dataSource.query(`SELECT "status" FROM "guests" WHERE "vmid" = 770`)).toEqual([{ status: 'running' }]);
    await t.dataSource.query(`DELETE FROM "guests" WHERE "vmid" IN (770, 771)`);
  });

  it('answers 503 for a node whose agent is away and 404 for a VM on another node', async () => {
    expectError(await call(t, 'POST', '/nodes/pve2/qemu', { form: { vmid: 110 } }), 503, "node 'pve2' is offline");
    expectError(await call(t, 'GET', '/nodes/pve2/qemu/100/config'), 404, "VM 100 does not exist on node 'pve2' (it is on node 'pve1')");
  });
});
