import type { FakeAgent } from '@corral/testing';
import { call, dataOf, type Form } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';

const ARCHIVE = 'local:backup/vzdump-qemu-100-2026_01_01-00_00_00.tar.zst';

// Every failure of a restore releases what it took: a restore into a new guest leaves no guest,
// one over an existing guest whose volumes cannot be removed leaves that guest as it was, unlocked.
describe('failed restores', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const failing = new Set<string>();

  const restore = async (form: Form) =>
    finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { archive: ARCHIVE, ...form } })));
  const row = async (vmid: number) =>
    (
      (await t.dataSource.query(`SELECT "lock", "lock_task" AS "lockTask", "config" FROM "guests" WHERE "vmid" = $1`, [vmid])) as {
        lock: string | null;
        lockTask: string | null;
        config: Record<string, string>;
      }[]
    )[0];

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => {
        if (failing.has(request.command)) return { failure: 'failed', message: `${request.command} failed on purpose` };
        if (request.command === 'guest.backup.config')
          return { result: { type: 'qemu', vmid: 100, config: 'memory: 512\nname: archived\n' } };
        return { result: null };
      },
    });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });
  beforeEach(() => failing.clear());

  it('a restore into a new guest that fails on the agent leaves no guest', async () => {
    failing.add('guest.restore');
    expect(await restore({ vmid: 200 })).toBe('guest.restore failed on purpose');
    expect(await row(200)).toBeUndefined();
  });

  it('a restore over a guest whose volumes cannot be removed leaves the guest as it was, unlocked', async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 210, memory: 256 } })))).toBe(
      'OK',
    );
    failing.add('guest.destroy');
    expect(await restore({ vmid: 210, force: 1 })).toBe('guest.destroy failed on purpose');
    expect(await row(210)).toMatchObject({ lock: null, lockTask: null, config: { memory: '256' } });
  });

  it('a restore over a guest that fails while filling its volumes leaves no guest', async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 220, memory: 256 } })))).toBe(
      'OK',
    );
    failing.add('guest.restore');
    expect(await restore({ vmid: 220, force: 1 })).toBe('guest.restore failed on purpose');
    expect(await row(220)).toBeUndefined();
  });
});
