import { waitFor, type FakeAgent } from '@corral/testing';
import { call, dataOf, expectError } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { GuestRow } from '../../inventory/guests/guest.entity.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsModule } from '../../guests/guests.module.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { ClusterModule } from '../cluster.module.js';
import { HaModule } from './ha.module.js';
import { HaResourceRow } from '../../inventory/ha/ha-resource.entity.js';

describe('guests under HA: their status, and their destroy', () => {
  let t: TestApp;
  let agent: FakeAgent;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, HaModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), { answer: () => ({ result: null }) });
    for (const [vmid, type] of [
      [100, 'qemu'],
      [101, 'lxc'],
      [102, 'qemu'],
    ] as const) {
      await t.app.get(GuestsRepository).insert({ vmid, type, node: 'pve1', config: {}, lock: null });
      await t.app.get(GuestView).reload(vmid);
    }
    dataOf(await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'prod', nodes: 'pve1' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:100', group: 'prod', state: 'stopped' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'ct:101', state: 'ignored' } }));
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  const ha = async (path: string) => dataOf<{ ha: unknown }>(await call(t, 'GET', path)).ha;

  it("shows PVE's `ha` in status/current: managed with the requested state and group, or not managed", async () => {
    expect(await ha('/nodes/pve1/qemu/100/status/current')).toEqual({ managed: 1, state: 'stopped', group: 'prod' });
    expect(await ha('/nodes/pve1/qemu/100/status')).toEqual({ managed: 1, state: 'stopped', group: 'prod' });
    expect(await ha('/nodes/pve1/lxc/101/status/current')).toEqual({ managed: 1, state: 'ignored' });
    expect(await ha('/nodes/pve1/qemu/102/status/current')).toEqual({ managed: 0 });
  });

  it('shows in status/current a change of the resource another replica wrote, once its notification came', async () => {
    await t.dataSource.query(`UPDATE "ha_resources" SET "state" = 'started' WHERE "vmid" = 100`);
    await waitFor(async () => ((await ha('/nodes/pve1/qemu/100/status/current')) as { state?: string }).state === 'started', {
      timeoutMs: 5000,
      what: 'the HA view to reload',
    });
    await t.dataSource.query(`UPDATE "ha_resources" SET "state" = 'stopped' WHERE "vmid" = 100`);
    await waitFor(async () => ((await ha('/nodes/pve1/qemu/100/status/current')) as { state?: string }).state === 'stopped', {
      timeoutMs: 5000,
      what: 'the HA view to reload',
    });
  });

  it("refuses to destroy a guest under HA without purge=1, with PVE's words, keeping both", async () => {
    expectError(
      await call(t, 'DELETE', '/nodes/pve1/qemu/100'),
      409,
      'unable to remove VM 100 - used in HA resources and purge parameter not set.',
    );
    expectError(
      await call(t, 'DELETE', '/nodes/pve1/lxc/101', { form: { purge: 0 } }),
      409,
      'unable to remove CT 101 - used in HA resources and purge parameter not set.',
    );
    expect(await t.dataSource.manager.count(GuestRow)).toBe(3);
    expect(await t.dataSource.manager.count(HaResourceRow)).toBe(2);
  });

  it('destroys a guest under HA with purge=1, its HA resource going with it', async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/qemu/100', { form: { purge: 1 } })))).toBe('OK');
    expect(await t.dataSource.manager.existsBy(GuestRow, { vmid: 100 })).toBe(false);
    expect((await t.dataSource.manager.find(HaResourceRow)).map((row) => row.vmid)).toEqual([101]);
    expectError(await call(t, 'GET', '/cluster/ha/resources/vm:100'), 404, "HA resource 'vm:100' does not exist");
    // A guest without HA needs no purge.
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/qemu/102')))).toBe('OK');
  });
});
