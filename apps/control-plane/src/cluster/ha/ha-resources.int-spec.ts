import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { joinNode } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import type { GuestLock } from '../../inventory/guests/guest.entity.js';
import { GuestsModule } from '../../guests/guests.module.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { ClusterModule } from '../cluster.module.js';
import { HaModule } from './ha.module.js';
import { HaResourceRow } from '../../inventory/ha/ha-resource.entity.js';
import type { HaResourceEntry } from './ha-resources.endpoints.js';

describe('HA resources API (/cluster/ha/resources)', () => {
  let t: TestApp;

  const guest = (vmid: number, type: 'qemu' | 'lxc', options: { lock?: GuestLock; template?: boolean } = {}) =>
    t.app.get(GuestsRepository).insert({
      vmid,
      type,
      node: 'pve1',
      config: options.template ? { template: '1' } : {},
      // No agent of pve1 is connected: the lock stays, whatever its task.
      ...(options.lock !== undefined ? { lock: options.lock, lockTask: `UPID:pve1:${vmid}` } : { lock: null }),
    });
  const resource = async (sid: string) => dataOf<HaResourceEntry>(await call(t, 'GET', `/cluster/ha/resources/${sid}`));
  const rows = () => t.dataSource.manager.find(HaResourceRow, { order: { vmid: 'ASC' } });

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, GuestsModule, HaModule] });
    await joinNode(t, 'pve1');
    dataOf(await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'prod', nodes: 'pve1' } }));
    await guest(100, 'qemu');
    await guest(101, 'lxc');
    await guest(102, 'qemu');
    await guest(110, 'qemu', { template: true });
    await guest(120, 'qemu', { lock: 'backup' });
    await guest(121, 'lxc', { lock: 'migrate' });
  });
  afterAll(() => t.close());

  it('creates, lists, reads, changes and deletes a resource with PVE names and answers', async () => {
    expect(
      dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:100', group: 'prod', max_restart: 2, comment: 'web' } })),
    ).toBeNull();
    const created = await resource('vm:100');
    expect(created).toEqual({
      sid: 'vm:100',
      type: 'vm',
      state: 'started',
      group: 'prod',
      max_restart: 2,
      max_relocate: 1,
      comment: 'web',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(await resource('100')).toEqual(created);
    expect(dataOf<HaResourceEntry[]>(await call(t, 'GET', '/cluster/ha/resources'))).toEqual([created]);

    expect(
      dataOf(
        await call(t, 'PUT', '/cluster/ha/resources/vm:100', {
          form: { state: 'stopped', max_relocate: 0, delete: 'group,comment', digest: created.digest },
        }),
      ),
    ).toBeNull();
    const changed = await resource('vm:100');
    expect(changed).toEqual({ sid: 'vm:100', type: 'vm', state: 'stopped', max_restart: 2, max_relocate: 0, digest: expect.any(String) });
    expect(changed.digest).not.toBe(created.digest);
    expectError(
      await call(t, 'PUT', '/cluster/ha/resources/vm:100', { form: { comment: 'late', digest: created.digest } }),
      409,
      'file changed by other user',
    );

    dataOf(await call(t, 'PUT', '/cluster/ha/resources/100', { form: { delete: 'state,max_restart,max_relocate' } }));
    expect(await resource('vm:100')).toEqual(expect.objectContaining({ state: 'started', max_restart: 1, max_relocate: 1 }));

    expect(dataOf(await call(t, 'DELETE', '/cluster/ha/resources/vm:100'))).toBeNull();
    expectError(
      await call(t, 'GET', '/cluster/ha/resources/vm:100'),
      404,
      "no such resource 'vm:100': HA resource 'vm:100' does not exist",
    );
    expect(await rows()).toEqual([]);
  });

  it('takes the type from the guest for a bare vmid, `enabled` as started, and filters the list by type', async () => {
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: '101', state: 'enabled' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: '102', type: 'vm', state: 'ignored' } }));
    expect(await resource('ct:101')).toEqual(expect.objectContaining({ sid: 'ct:101', type: 'ct', state: 'started' }));
    expect((await rows()).map((row) => [row.vmid, row.crmState])).toEqual([
      [101, 'started'],
      [102, 'ignored'],
    ]);
    expect(
      dataOf<HaResourceEntry[]>(await call(t, 'GET', '/cluster/ha/resources', { query: 'type=ct' })).map((entry) => entry.sid),
    ).toEqual(['ct:101']);
    expect(
      dataOf<HaResourceEntry[]>(await call(t, 'GET', '/cluster/ha/resources', { query: 'type=vm' })).map((entry) => entry.sid),
    ).toEqual(['vm:102']);
    // The sid's type must be the resource's, on every path.
    expectError(await call(t, 'GET', '/cluster/ha/resources/vm:101'), 404, "HA resource 'vm:101' does not exist");
    expectError(await call(t, 'DELETE', '/cluster/ha/resources/vm:101'), 404, "HA resource 'vm:101' does not exist");
    for (const sid of ['ct:101', 'vm:102']) dataOf(await call(t, 'DELETE', `/cluster/ha/resources/${sid}`));
  });

  it.each<[string, Form, number, string, string | undefined]>([
    ['an unknown guest', { sid: 'vm:999' }, 404, 'VM 999 does not exist', undefined],
    ['an unknown bare vmid', { sid: '999' }, 404, 'guest 999 does not exist', undefined],
    ['a sid of the wrong type', { sid: 'vm:101' }, 400, "sid 'vm:101': guest 101 is a container, its sid is 'ct:101'", 'sid'],
    ["a type that is not the guest's", { sid: '101', type: 'vm' }, 400, "sid '101': guest 101 is a container", 'sid'],
    ["a type that is not the sid's", { sid: 'ct:101', type: 'vm' }, 400, "type 'vm' does not match sid 'ct:101'", 'type'],
    ['a template', { sid: 'vm:110' }, 400, "sid 'vm:110': VM 110 is a template", 'sid'],
    ['an unknown group', { sid: 'vm:100', group: 'nogroup' }, 400, "HA group 'nogroup' does not exist", 'group'],
    ['a guest locked by a backup', { sid: 'vm:120' }, 409, "VM 120 is locked (backup): cannot request HA state 'started'", undefined],
    ['a guest locked by a migration', { sid: 'ct:121', state: 'stopped' }, 409, 'CT 121 is locked (migrate)', undefined],
    ['a malformed sid', { sid: 'vm:abc' }, 400, 'must be vm:<vmid>, ct:<vmid> or <vmid>', 'sid'],
    ['an unknown state', { sid: 'vm:100', state: 'running' }, 400, 'expected started, stopped, enabled, disabled or ignored', 'state'],
    ['too many restarts', { sid: 'vm:100', max_restart: 11 }, 400, 'must be at most 10', 'max_restart'],
  ])('refuses %s, writing nothing', async (_what, form, status, message, param) => {
    expectError(await call(t, 'POST', '/cluster/ha/resources', { form }), status, message, param);
    expect(await rows()).toEqual([]);
  });

  it('puts a locked guest under HA as `ignored`, and refuses a state change until the lock ends', async () => {
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:120', state: 'ignored' } }));
    expectError(
      await call(t, 'PUT', '/cluster/ha/resources/vm:120', { form: { state: 'started' } }),
      409,
      "VM 120 is locked (backup): cannot request HA state 'started' until the backup ends",
    );
    expectError(await call(t, 'PUT', '/cluster/ha/resources/vm:120', { form: { delete: 'state' } }), 409, 'VM 120 is locked (backup)');
    // Other settings, and the same state again, are no state change.
    dataOf(await call(t, 'PUT', '/cluster/ha/resources/vm:120', { form: { state: 'ignored', comment: 'after the backup' } }));
    expect(await resource('vm:120')).toEqual(expect.objectContaining({ state: 'ignored', comment: 'after the backup' }));
    await t.dataSource.query('UPDATE "guests" SET "lock" = NULL WHERE "vmid" = 120');
    dataOf(await call(t, 'PUT', '/cluster/ha/resources/vm:120', { form: { state: 'started' } }));
    expect(await resource('vm:120')).toEqual(expect.objectContaining({ state: 'started' }));
    dataOf(await call(t, 'DELETE', '/cluster/ha/resources/vm:120'));
  });

  it('answers 409 for a guest already under HA, and 400s for bad changes, changing nothing', async () => {
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:100', comment: 'kept' } }));
    expectError(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: '100' } }), 409, "HA resource 'vm:100' already exists");
    expectError(
      await call(t, 'PUT', '/cluster/ha/resources/vm:100', { form: { group: 'nogroup' } }),
      400,
      "HA group 'nogroup' does not exist",
      'group',
    );
    expectError(
      await call(t, 'PUT', '/cluster/ha/resources/vm:100', { form: { comment: 'x', delete: 'comment' } }),
      400,
      "cannot set and delete 'comment' at once",
      'delete',
    );
    expectError(await call(t, 'PUT', '/cluster/ha/resources/vm:100', { form: { delete: 'sid' } }), 400, "cannot delete 'sid'", 'delete');
    expectError(
      await call(t, 'PUT', '/cluster/ha/resources/ct:100', { form: { comment: 'x' } }),
      404,
      "HA resource 'ct:100' does not exist",
    );
    expectError(
      await call(t, 'PUT', '/cluster/ha/resources/vm:999', { form: { comment: 'x' } }),
      404,
      "HA resource 'vm:999' does not exist",
    );
    expect(await resource('vm:100')).toEqual(expect.objectContaining({ state: 'started', comment: 'kept' }));
    expect((await rows()).length).toBe(1);
    dataOf(await call(t, 'DELETE', '/cluster/ha/resources/vm:100'));
  });
});
