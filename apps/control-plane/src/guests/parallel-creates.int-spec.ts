import type { FakeAgent } from '@corral/testing';
import { call, dataOf } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { GuestsModule } from './guests.module.js';

// Parallel automation gets no lock errors: 200 creates at once, half with their own ids and
// half with ids from /cluster/nextid, all succeed; a true duplicate is a clean 409; nothing half made.
describe('200 parallel creates', () => {
  let t: TestApp;
  let agent: FakeAgent;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), { answer: () => ({ result: null }) });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('all succeed, duplicates get 409, and every guest exists whole', async () => {
    const create = async (vmid: number | 'next') => {
      const id = vmid === 'next' ? Number(dataOf<string>(await call(t, 'GET', '/cluster/nextid'))) : vmid;
      return {
        vmid: id,
        res: await call(t, 'POST', '/nodes/pve1/qemu', {
          form: { vmid: id, name: `vm${id}`, scsi0: 'local:1', net0: 'virtio,bridge=vmbr0' },
        }),
      };
    };
    const explicit = Array.from({ length: 100 }, (_, i) => create(5000 + i));
    const fromNextid = Array.from({ length: 100 }, () => create('next'));
    // The same explicit ids again: exactly one of each pair may win.
    const duplicates = Array.from({ length: 10 }, (_, i) => create(5000 + i));
    const results = await Promise.all([...explicit, ...fromNextid, ...duplicates]);

    const byStatus = (status: number) => results.filter((result) => result.res.status === status);
    expect(byStatus(200)).toHaveLength(200);
    expect(byStatus(409)).toHaveLength(10);
    for (const { res } of byStatus(409))
      expect(res.json<{ errors: { message: string }[] }>().errors[0]?.message).toMatch(/^VM 50\d\d already exists: it is on node 'pve1'$/);
    expect(new Set(byStatus(200).map((result) => result.vmid)).size).toBe(200);

    for (const { res } of byStatus(200)) expect(await finished(t, 'pve1', dataOf<string>(res))).toBe('OK');
    const rows = (await t.dataSource.query('SELECT count(*)::int AS "all", count("lock")::int AS "locked" FROM "guests"')) as {
      all: number;
      locked: number;
    }[];
    expect(rows).toEqual([{ all: 200, locked: 0 }]);
    const creates = (await t.dataSource.query(`SELECT count(*)::int AS "n" FROM "events" WHERE "event" = 'vm-create'`)) as { n: number }[];
    expect(creates).toEqual([{ n: 200 }]);
  });
});
