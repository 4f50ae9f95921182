import type { RequestFrame } from '@corral/protocol';
import { waitFor, type FakeAgent, type FakeAnswer } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { aclRows } from '../access/acl/acl.fixture.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsModule } from '../guests/guests.module.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { PoolGuestRow } from '../inventory/pools/pool-guest.entity.js';
import { PoolMembers } from '../inventory/pools/pool-members.js';
import { PoolRow } from '../inventory/pools/pool.entity.js';
import { PoolsModule } from './pools.module.js';

const MEM = 64 * 1024 * 1024;

type Member = { id: string; type: string; vmid?: number; storage?: string; node: string; status: string; name?: string; pool?: string };

describe('pools API (/pool, /pools)', () => {
  let t: TestApp;
  let agent: FakeAgent;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, PoolsModule] });
    const credential = await joinNode(t, 'pve1');
    // A started VM reports itself running, as the real agent does before its result.
    const answer = (request: RequestFrame): FakeAnswer => {
      if (request.command === 'guest.start') {
        const { vmid } = (request.params as { guest: { vmid: number } }).guest;
        agent.send({
          type: 'report',
          payload: { kind: 'runtime', guests: [{ vmid, type: 'qemu', status: 'running', pid: 4242, uptime: 7, cpu: 0.5, mem: MEM }] },
        });
      }
      return { result: null };
    };
    agent = await onlineAgent(t, 'pve1', credential, { answer });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  /** A guest of pve1 in the database and the guest view, as the guests API leaves it. */
  const addGuest = async (vmid: number, type: 'qemu' | 'lxc' = 'qemu') => {
    await t.app
      .get(GuestsRepository)
      .insert({ vmid, type, node: 'pve1', config: type === 'qemu' ? { name: `vm${vmid}` } : { hostname: `ct${vmid}` }, lock: null });
    await t.app.get(GuestView).reload(vmid);
  };
  const removeGuest = async (vmid: number) => {
    await t.app.get(GuestsRepository).remove(vmid);
    await t.app.get(GuestView).reload(vmid);
  };
  const poolOf = async (vmid: number) => (await t.dataSource.manager.findOneBy(PoolGuestRow, { vmid }))?.poolid;
  const members = async (poolid: string, query = '') =>
    dataOf<{ members: Member[] }>(await call(t, 'GET', `/pools/${poolid}`, { query })).members;

  it('creates, lists, reads, comments and deletes pools on both path forms', async () => {
    dataOf(await call(t, 'POST', '/pool', { form: { poolid: 'dev', comment: 'developers' } }));
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'ops' } }));
    expect(dataOf(await call(t, 'GET', '/pool'))).toEqual(
      expect.arrayContaining([{ poolid: 'dev', comment: 'developers' }, { poolid: 'ops' }]),
    );
    expect(dataOf(await call(t, 'GET', '/pools/dev'))).toEqual({ comment: 'developers', members: [] });
    expect(dataOf(await call(t, 'GET', '/pool/ops'))).toEqual({ members: [] });

    dataOf(await call(t, 'PUT', '/pools/ops', { form: { comment: 'operations' } }));
    dataOf(await call(t, 'POST', '/pool/dev', { form: { comment: '' } }));
    expect(dataOf(await call(t, 'GET', '/pools', { query: 'poolid=ops' }))).toEqual([
      { poolid: 'ops', comment: 'operations', members: [] },
    ]);
    expect(dataOf(await call(t, 'GET', '/pools/dev'))).toEqual({ members: [] });

    dataOf(await call(t, 'DELETE', '/pools/ops'));
    dataOf(await call(t, 'DELETE', '/pools', { query: 'poolid=dev' }));
    expect(await t.dataSource.manager.count(PoolRow)).toBe(0);
  });

  it('adds guests and storages, shows them as /cluster/resources does, and removes them on both path forms', async () => {
    await addGuest(100);
    await addGuest(101, 'lxc');
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'web', comment: 'web tier' } }));
    dataOf(await call(t, 'PUT', '/pools/web', { form: { vms: '100,101', storage: 'local' } }));

    expect(await members('web')).toEqual([
      expect.objectContaining({ id: 'qemu/100', type: 'qemu', vmid: 100, node: 'pve1', name: 'vm100', status: 'stopped', pool: 'web' }),
      expect.objectContaining({ id: 'lxc/101', type: 'lxc', vmid: 101, node: 'pve1', name: 'ct101', status: 'stopped', pool: 'web' }),
      expect.objectContaining({ id: 'storage/pve1/local', type: 'storage', storage: 'local', node: 'pve1', status: 'available' }),
    ]);
    expect((await members('web', 'type=lxc')).map((m) => m.id)).toEqual(['lxc/101']);
    const [listed] = dataOf<{ poolid: string; comment: string; members: Member[] }[]>(
      await call(t, 'GET', '/pools', { query: 'poolid=web&type=storage' }),
    );
    expect(listed).toEqual({ poolid: 'web', comment: 'web tier', members: [expect.objectContaining({ id: 'storage/pve1/local' })] });

    const resources = dataOf<Member[]>(await call(t, 'GET', '/cluster/resources'));
    expect(resources).toContainEqual(expect.objectContaining({ id: 'qemu/100', pool: 'web' }));
    expect(resources).toContainEqual({ id: '/pool/web', type: 'pool', pool: 'web' });
    expect(dataOf<Member[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=vm' })).filter((r) => r.type === 'pool')).toEqual([]);

    dataOf(await call(t, 'DELETE', '/pool/web/100'));
    expect(await poolOf(100)).toBeUndefined();
    dataOf(await call(t, 'PUT', '/pools', { form: { poolid: 'web', vms: '101', storage: 'local', delete: 1 } }));
    expect(await members('web')).toEqual([]);
    expect(dataOf<Member[]>(await call(t, 'GET', '/cluster/resources')).find((r) => r.id === 'qemu/100')).not.toHaveProperty('pool');
  });

  it('keeps a guest in one pool: another pool takes it only with allow-move; a storage may be in several', async () => {
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'blue' } }));
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'green' } }));
    dataOf(await call(t, 'PUT', '/pools/blue', { form: { vms: '100', storage: 'local' } }));
    expectError(await call(t, 'PUT', '/pools/blue', { form: { vms: '100' } }), 409, 'VM 100 is already a pool member');
    expectError(
      await call(t, 'PUT', '/pools/green', { form: { vms: '100' } }),
      409,
      "VM 100 is already in pool 'blue' (allow-move=1 moves it)",
    );
    expect(await poolOf(100)).toBe('blue');

    dataOf(await call(t, 'PUT', '/pools/green', { form: { vms: '100', storage: 'local', 'allow-move': 1 } }));
    expect(await poolOf(100)).toBe('green');
    expect((await members('blue')).map((m) => m.id)).toEqual(['storage/pve1/local']);
    expect((await members('green')).map((m) => m.id)).toEqual(['qemu/100', 'storage/pve1/local']);
    expectError(await call(t, 'PUT', '/pools/green', { form: { storage: 'local' } }), 409, "storage 'local' is already a pool member");
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'strict' } }));
    expectError(await call(t, 'POST', '/pools', { form: { poolid: 'strict' } }), 409, "pool 'strict' already exists");
    expectError(await call(t, 'POST', '/pool', { form: { poolid: 'a/b' } }), 400, "nested pools 'a/b' are not supported", 'poolid');
    expectError(await call(t, 'POST', '/pool', { form: { poolid: '1st' } }), 400, 'must be a letter', 'poolid');
    for (const [method, path] of [
      ['GET', '/pools/ghost'],
      ['PUT', '/pools/ghost'],
      ['POST', '/pool/ghost'],
      ['DELETE', '/pools/ghost'],
      ['GET', '/pools?poolid=ghost'],
    ] as const) {
      const [bare = '', query] = path.split('?');
      expectError(
        await call(t, method, bare, {
          ...(query ? { query } : {}),
          ...(method === 'PUT' || method === 'POST' ? { form: { comment: 'x' } } : {}),
        }),
        404,
        "pool 'ghost' does not exist",
      );
    }
    expectError(await call(t, 'GET', '/pools', { query: 'type=qemu' }), 400, "only together with 'poolid'", 'type');

    await addGuest(102);
    expectError(await call(t, 'PUT', '/pools/strict', { form: { vms: '102,999', comment: 'changed' } }), 404, 'VM 999 does not exist');
    expectError(await call(t, 'PUT', '/pools/strict', { form: { vms: '102', storage: 'nosuch' } }), 404, "storage 'nosuch' does not exist");
    expectError(await call(t, 'PUT', '/pools/strict', { form: { vms: '99' } }), 400, 'must be at least 100', 'vms');
    expect(await poolOf(102)).toBeUndefined();
    expect(dataOf(await call(t, 'GET', '/pools/strict'))).toEqual({ members: [] });

    expectError(await call(t, 'DELETE', '/pool/strict/102'), 400, "guest 102 is not a member of pool 'strict'", 'vmid');
    expectError(
      await call(t, 'PUT', '/pools/strict', { form: { storage: 'local', delete: 1 } }),
      400,
      "storage 'local' is not a member of pool 'strict'",
      'storage',
    );
  });

  it("deletes a pool only when it is empty, and the pool's ACL entries with it", async () => {
    await addUser(t, 'keeper@pve');
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'busy' } }));
    await grant(t, { path: '/pool/busy', type: 'user', ugid: 'keeper@pve', roleid: 'PVEPoolUser' });
    dataOf(await call(t, 'PUT', '/pools/busy', { form: { vms: '102' } }));
    expectError(await call(t, 'DELETE', '/pools/busy'), 409, "pool 'busy' is not empty (it holds guest 102)");
    dataOf(await call(t, 'DELETE', '/pool/busy/102'));
    dataOf(await call(t, 'DELETE', '/pools/busy'));
    expect((await aclRows(t)).filter((e) => e.path === '/pool/busy')).toEqual([]);
  });

  it('lets a guest leave its pool when it is deleted, and PoolMembers put a new guest into a pool', async () => {
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'temp' } }));
    await addGuest(103);
    // The guests module provides it (the guests API's `pool` parameter); this app has it through no module.
    const poolMembers = new PoolMembers(t.dataSource);
    await poolMembers.add(undefined, 'temp', 103);
    expect((await members('temp')).map((m) => m.id)).toEqual(['qemu/103']);
    await expect(poolMembers.add(undefined, 'temp', 103)).rejects.toThrow('guest 103 is already a pool member');
    await expect(t.dataSource.transaction((db) => poolMembers.add(db, 'nosuch', 104))).rejects.toThrow("pool 'nosuch' does not exist");

    await removeGuest(103);
    expect(await members('temp')).toEqual([]);
    dataOf(await call(t, 'DELETE', '/pools/temp'));
  });

  describe('as a user whose rights come from a pool', () => {
    const PASSWORD = 'pool-user-password';
    const alice = basic('alice@pve', PASSWORD);
    const status = (vmid: number) => call(t, 'GET', `/nodes/pve1/qemu/${vmid}/status/current`, { as: alice });
    const start = (vmid: number) => call(t, 'POST', `/nodes/pve1/qemu/${vmid}/status/start`, { as: alice });

    beforeAll(async () => {
      await addUser(t, 'alice@pve', { password: PASSWORD });
      dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'p' } }));
      await grant(t, { path: '/pool/p', type: 'user', ugid: 'alice@pve', roleid: 'PVEVMUser' });
      await addGuest(110);
    });

    it('starts VM 110 only while it is in the pool', async () => {
      expectError(await start(110), 403, 'permission denied');
      expectError(await status(110), 403, 'permission denied');

      dataOf(await call(t, 'PUT', '/pools/p', { form: { vms: '110' } }));
      expect(await finished(t, 'pve1', dataOf<string>(await start(110)))).toBe('OK');
      expect(dataOf<{ vmid: number }>(await status(110)).vmid).toBe(110);
      expect(dataOf<Member[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=vm', as: alice })).map((r) => r.id)).toEqual([
        'qemu/110',
      ]);
      // The pool's entry sums the load of its running guests.
      expect(dataOf<Member[]>(await call(t, 'GET', '/cluster/resources'))).toContainEqual({
        id: '/pool/p',
        type: 'pool',
        pool: 'p',
        cpu: 0.5,
        maxcpu: 1,
        mem: MEM,
        maxmem: expect.any(Number),
        uptime: 7,
      });

      dataOf(await call(t, 'DELETE', '/pool/p/110'));
      expectError(await start(110), 403, 'permission denied');
      expectError(await status(110), 403, 'permission denied');
    });

    it('loses the rights on a deleted guest: a new guest with its vmid is not in the pool', async () => {
      dataOf(await call(t, 'PUT', '/pools/p', { form: { vms: '110' } }));
      expect(dataOf<{ vmid: number }>(await status(110)).vmid).toBe(110);
      // Deleted and created again without the pools API: only the membership trigger tells the access snapshot.
      await removeGuest(110);
      await addGuest(110);
      await waitFor(async () => (await status(110)).status === 403, {
        timeoutMs: 10_000,
        what: 'the access snapshot to drop the deleted guest from the pool',
      });
      expect(await poolOf(110)).toBeUndefined();
    });

    it('lists and reads only the pools it may audit, and needs Pool.Allocate to change one', async () => {
      expect(dataOf<{ poolid: string }[]>(await call(t, 'GET', '/pools', { as: alice }))).toEqual([]);
      expectError(await call(t, 'GET', '/pools/p', { as: alice }), 403, 'permission denied');
      expectError(await call(t, 'PUT', '/pools/p', { form: { comment: 'mine' }, as: alice }), 403, 'permission denied');
      await grant(t, { path: '/pool/p', type: 'user', ugid: 'alice@pve', roleid: 'PVEPoolAdmin' });
      expect(dataOf(await call(t, 'GET', '/pools', { as: alice }))).toEqual([{ poolid: 'p' }]);
      dataOf(await call(t, 'PUT', '/pools/p', { form: { comment: 'mine' }, as: alice }));
    });

    it("needs the right to change a member's permissions to add or remove it, and to take it from another pool", async () => {
      // PVEPoolAdmin on /pool/p (the test before), nothing on the guest itself.
      expectError(await call(t, 'PUT', '/pools/p', { form: { vms: '110' }, as: alice }), 403, 'permission denied');
      expectError(await call(t, 'PUT', '/pools/p', { form: { storage: 'local' }, as: alice }), 403, 'permission denied');
      expect(await poolOf(110)).toBeUndefined();

      await grant(t, { path: '/vms/110', type: 'user', ugid: 'alice@pve', roleid: 'PVEVMAdmin' });
      dataOf(await call(t, 'PUT', '/pools/p', { form: { vms: '110' }, as: alice }));
      dataOf(await call(t, 'DELETE', '/pool/p/110', { as: alice }));

      dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'foreign' } }));
      dataOf(await call(t, 'PUT', '/pools/foreign', { form: { vms: '110' } }));
      expectError(await call(t, 'PUT', '/pools/p', { form: { vms: '110', 'allow-move': 1 }, as: alice }), 403, 'permission denied');
      expect(await poolOf(110)).toBe('foreign');
      await grant(t, { path: '/pool/foreign', type: 'user', ugid: 'alice@pve', roleid: 'PVEPoolAdmin' });
      dataOf(await call(t, 'PUT', '/pools/p', { form: { vms: '110', 'allow-move': 1 }, as: alice }));
      expect(await poolOf(110)).toBe('p');
    });
  });
});
