import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { joinNode } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { GuestsModule } from '../../guests/guests.module.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { ClusterModule } from '../cluster.module.js';
import { HaModule } from './ha.module.js';
import { HaGroupRow } from '../../inventory/ha/ha-group.entity.js';
import type { HaGroupEntry } from './ha-groups.endpoints.js';

describe('HA groups API (/cluster/ha/groups)', () => {
  let t: TestApp;

  const group = async (name: string) => dataOf<HaGroupEntry>(await call(t, 'GET', `/cluster/ha/groups/${name}`));
  const count = () => t.dataSource.manager.count(HaGroupRow);

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, GuestsModule, HaModule] });
    await joinNode(t, 'pve1');
    await joinNode(t, 'pve2');
    await t.app.get(GuestsRepository).insert({ vmid: 100, type: 'qemu', node: 'pve1', config: {}, lock: null });
    await t.app.get(GuestsRepository).insert({ vmid: 101, type: 'lxc', node: 'pve1', config: {}, lock: null });
  });
  afterAll(() => t.close());

  it('creates, lists, reads, changes and deletes a group with PVE names and answers', async () => {
    expect(
      dataOf(
        await call(t, 'POST', '/cluster/ha/groups', {
          form: { group: 'prod', nodes: 'pve1:2,pve2', restricted: 1, comment: 'production', type: 'group' },
        }),
      ),
    ).toBeNull();
    const created = await group('prod');
    expect(created).toEqual({
      group: 'prod',
      type: 'group',
      nodes: 'pve1:2,pve2',
      restricted: 1,
      comment: 'production',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(dataOf(await call(t, 'GET', '/cluster/ha/groups'))).toEqual([created]);
    expect(await t.dataSource.manager.findOneByOrFail(HaGroupRow, { group: 'prod' })).toEqual(
      expect.objectContaining({
        nodes: [
          { node: 'pve1', priority: 2 },
          { node: 'pve2', priority: null },
        ],
      }),
    );

    dataOf(
      await call(t, 'PUT', '/cluster/ha/groups/prod', {
        form: { nodes: 'pve2:1', nofailback: 1, delete: 'restricted,comment', digest: created.digest },
      }),
    );
    expect(await group('prod')).toEqual({ group: 'prod', type: 'group', nodes: 'pve2:1', nofailback: 1, digest: expect.any(String) });
    expectError(
      await call(t, 'PUT', '/cluster/ha/groups/prod', { form: { comment: 'late', digest: created.digest } }),
      409,
      'file changed by other user',
    );

    expect(dataOf(await call(t, 'DELETE', '/cluster/ha/groups/prod'))).toBeNull();
    expectError(await call(t, 'GET', '/cluster/ha/groups/prod'), 404, "HA group 'prod' does not exist");
  });

  it.each<[string, Form, string, string]>([
    ['unknown nodes, naming them', { group: 'bad', nodes: 'pve1,pve7:1,pve8' }, "nodes 'pve7', 'pve8' do not exist", 'nodes'],
    ['an unknown node', { group: 'bad', nodes: 'pve9' }, "node 'pve9' does not exist", 'nodes'],
    ['a negative priority', { group: 'bad', nodes: 'pve1:-1' }, "'pve1:-1': the priority must be a non-negative integer", 'nodes'],
    ['a node given twice', { group: 'bad', nodes: 'pve1,pve1:3' }, "node 'pve1' is given twice", 'nodes'],
    ['no nodes', { group: 'bad' }, "parameter 'nodes' is missing", 'nodes'],
    ['another section type', { group: 'bad', nodes: 'pve1', type: 'node' }, "expected group, got 'node'", 'type'],
    ['a malformed name', { group: '1bad', nodes: 'pve1' }, 'must be a letter', 'group'],
  ])('refuses %s with a 400, writing nothing', async (_what, form, message, param) => {
    expectError(await call(t, 'POST', '/cluster/ha/groups', { form }), 400, message, param);
    expect(await count()).toBe(0);
  });

  it('answers 409 for a name taken, refuses unknown nodes in a change, and 404 for a group that does not exist', async () => {
    dataOf(await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'twice', nodes: 'pve1' } }));
    expectError(
      await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'twice', nodes: 'pve2' } }),
      409,
      "HA group 'twice' already exists",
    );
    expectError(
      await call(t, 'PUT', '/cluster/ha/groups/twice', { form: { nodes: 'pve1,ghost' } }),
      400,
      "node 'ghost' does not exist",
      'nodes',
    );
    expect(await group('twice')).toEqual(expect.objectContaining({ nodes: 'pve1' }));
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expectError(
        await call(t, method, '/cluster/ha/groups/ghost', method === 'PUT' ? { form: { comment: 'x' } } : {}),
        404,
        "HA group 'ghost' does not exist",
      );
    }
    dataOf(await call(t, 'DELETE', '/cluster/ha/groups/twice'));
  });

  it('refuses to delete a group HA resources use, naming them, and deletes it once they are gone', async () => {
    dataOf(await call(t, 'POST', '/cluster/ha/groups', { form: { group: 'used', nodes: 'pve1' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:100', group: 'used' } }));
    dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'ct:101', group: 'used' } }));
    expectError(await call(t, 'DELETE', '/cluster/ha/groups/used'), 409, "HA group 'used' is used by the HA resources vm:100, ct:101");
    expect(await count()).toBe(1);
    dataOf(await call(t, 'PUT', '/cluster/ha/resources/vm:100', { form: { delete: 'group' } }));
    dataOf(await call(t, 'DELETE', '/cluster/ha/resources/ct:101'));
    dataOf(await call(t, 'DELETE', '/cluster/ha/groups/used'));
    expect(await count()).toBe(0);
  });
});
