import { waitFor } from '@corral/testing';
import { call, dataOf, expectError } from '../../../test-support/access-fixture.js';
import { joinNode } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { PoolsModule } from '../../pools/pools.module.js';
import { StorageRow } from '../../inventory/storage/storage.entity.js';
import { BackupJobRow } from './backup-job.entity.js';
import type { BackupJobEntry } from './backup-jobs.endpoints.js';
import { BackupJobsModule } from './backup-jobs.module.js';

// Schedules that are never due while the tests run, so the app's own scheduler leaves the jobs alone.
const YEARLY = '2199-12-31 23:59';

describe('backup jobs API (/cluster/backup)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, PoolsModule, BackupJobsModule] });
    await joinNode(t, 'pve1');
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'prod' } }));
    await t.dataSource.manager.insert(StorageRow, {
      storage: 'isos',
      type: 'dir',
      path: '/srv/isos',
      content: ['iso'],
      nodes: null,
      shared: false,
      disable: false,
      pruneBackups: null,
      isMountpoint: false,
    });
  });
  afterAll(() => t.close());

  const job = async (id: string) => dataOf<BackupJobEntry>(await call(t, 'GET', `/cluster/backup/${id}`));
  const create = async (form: Record<string, string | number>) =>
    dataOf(await call(t, 'POST', '/cluster/backup', { form: { schedule: YEARLY, ...form } }));

  it('creates a job with PVE names and shows it with its next run', async () => {
    expect(
      dataOf(
        await call(t, 'POST', '/cluster/backup', {
          form: {
            id: 'nightly',
            schedule: 'mon..fri 22:30',
            vmid: '100,101',
            storage: 'local',
            mode: 'snapshot',
            compress: 'zstd',
            comment: 'weekdays',
            'prune-backups': 'keep-last=3,keep-weekly=2',
            'notes-template': '{{guestname}}',
          },
        }),
      ),
    ).toBeNull();
    const entry = await job('nightly');
    expect(entry).toEqual({
      id: 'nightly',
      type: 'vzdump',
      schedule: 'mon..fri 22:30',
      enabled: 1,
      'next-run': expect.any(Number),
      'repeat-missed': 1,
      vmid: '100,101',
      storage: 'local',
      mode: 'snapshot',
      compress: 'zstd',
      comment: 'weekdays',
      'prune-backups': { 'keep-last': 3, 'keep-weekly': 2 },
      'notes-template': '{{guestname}}',
    });
    // The next weekday 22:30 on the control plane's clock: within a week, in the future.
    const nextRun = (entry['next-run'] ?? 0) * 1000;
    expect(nextRun).toBeGreaterThan(Date.now());
    expect(nextRun - Date.now()).toBeLessThanOrEqual(4 * 86_400_000);
    expect(dataOf<BackupJobEntry[]>(await call(t, 'GET', '/cluster/backup')).map((j) => j.id)).toContain('nightly');
  });

  it('makes up a UUID when no id is given', async () => {
    const before = new Set(dataOf<BackupJobEntry[]>(await call(t, 'GET', '/cluster/backup')).map((j) => j.id));
    await create({ all: 1, exclude: '100', 'repeat-missed': 0, enabled: 0 });
    const made = dataOf<BackupJobEntry[]>(await call(t, 'GET', '/cluster/backup')).filter((j) => !before.has(j.id));
    expect(made).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        type: 'vzdump',
        schedule: YEARLY,
        enabled: 0,
        'repeat-missed': 0,
        all: 1,
        exclude: '100',
      },
    ]);
  });

  it("answers 409 with PVE's words for an id that exists", async () => {
    await create({ id: 'twice', pool: 'prod' });
    expectError(
      await call(t, 'POST', '/cluster/backup', { form: { id: 'twice', schedule: 'daily', all: 1 } }),
      409,
      "Job 'twice' already exists",
    );
  });

  it.each([
    [{ schedule: 'mon..fri 25:30', all: 1 }, 'schedule', "invalid calendar event 'mon..fri 25:30'"],
    [{ schedule: 'sat 02:00 nonsense', all: 1 }, 'schedule', 'at position'],
    [{ all: 1 }, 'schedule', "parameter 'schedule' is missing"],
    [{ schedule: 'daily' }, 'vmid', 'give the guests to back up'],
    [{ schedule: 'daily', vmid: '100', all: 1 }, 'all', 'exclude each other'],
    [{ schedule: 'daily', all: 1, storage: 'nowhere' }, 'storage', "storage 'nowhere' does not exist"],
    [{ schedule: 'daily', all: 1, storage: 'isos' }, 'storage', "storage 'isos' does not hold backups"],
    [{ schedule: 'daily', pool: 'nopool' }, 'pool', "pool 'nopool' does not exist"],
    [{ schedule: 'daily', all: 1, node: 'pve9' }, 'node', "node 'pve9' does not exist"],
    [{ schedule: 'daily', all: 1, compress: 'lzo' }, 'compress', 'LZO is not supported'],
    [{ schedule: 'daily', all: 1, 'prune-backups': 'keep-all=1,keep-last=2' }, 'prune-backups', 'keep-all'],
    [{ schedule: 'daily', all: 1, id: '1job' }, 'id', 'must be a letter'],
    [{ schedule: 'daily', all: 1, starttime: '02:00' }, 'starttime', "unknown parameter 'starttime'"],
  ])('refuses %j with a 400 naming %s', async (form, param, message) => {
    const before = await t.dataSource.manager.count(BackupJobRow);
    expectError(await call(t, 'POST', '/cluster/backup', { form }), 400, message, param);
    expect(await t.dataSource.manager.count(BackupJobRow)).toBe(before);
  });

  it('shows the position of a schedule error in the message', async () => {
    const res = await call(t, 'POST', '/cluster/backup', { form: { schedule: 'sat 02:00 nonsense', all: 1 } });
    expect(res.json<{ errors: { message: string }[] }>().errors[0]?.message).toMatch(/at position 10/);
  });

  it('changes a job: a new selection replaces the old, `delete` resets settings', async () => {
    await create({ id: 'change', all: 1, exclude: '100,101', storage: 'local', comment: 'old', node: 'pve1', mode: 'stop' });
    dataOf(await call(t, 'PUT', '/cluster/backup/change', { form: { vmid: '105', comment: 'new', delete: 'mode,node' } }));
    expect(await job('change')).toEqual({
      id: 'change',
      type: 'vzdump',
      schedule: YEARLY,
      enabled: 1,
      'next-run': expect.any(Number),
      'repeat-missed': 1,
      vmid: '105',
      storage: 'local',
      comment: 'new',
    });
    dataOf(await call(t, 'PUT', '/cluster/backup/change', { form: { pool: 'prod', exclude: '107' } }));
    expect(await job('change')).toEqual(expect.objectContaining({ pool: 'prod', exclude: '107' }));
    expect(await job('change')).not.toHaveProperty('vmid');
    dataOf(await call(t, 'PUT', '/cluster/backup/change', { form: { enabled: 0 } }));
    expect(await job('change')).not.toHaveProperty('next-run');
    dataOf(await call(t, 'PUT', '/cluster/backup/change', { form: { delete: 'enabled,comment,repeat-missed' } }));
    expect(await job('change')).toEqual(expect.objectContaining({ enabled: 1, 'repeat-missed': 1, 'next-run': expect.any(Number) }));
    expect(await job('change')).not.toHaveProperty('comment');
  });

  it('refuses a change that leaves no guests, names what does not exist, or sets and deletes one setting', async () => {
    await create({ id: 'strict', vmid: '100' });
    expectError(await call(t, 'PUT', '/cluster/backup/strict', { form: { delete: 'vmid' } }), 400, 'give the guests', 'vmid');
    expectError(
      await call(t, 'PUT', '/cluster/backup/strict', { form: { storage: 'nowhere' } }),
      400,
      "storage 'nowhere' does not exist",
      'storage',
    );
    expectError(
      await call(t, 'PUT', '/cluster/backup/strict', { form: { schedule: 'every day' } }),
      400,
      'invalid calendar event',
      'schedule',
    );
    expectError(
      await call(t, 'PUT', '/cluster/backup/strict', { form: { comment: 'x', delete: 'comment' } }),
      400,
      "cannot set and delete 'comment'",
      'delete',
    );
    expectError(
      await call(t, 'PUT', '/cluster/backup/strict', { form: { delete: 'schedule' } }),
      400,
      "cannot delete 'schedule'",
      'delete',
    );
    expect(await job('strict')).toEqual(expect.objectContaining({ vmid: '100', schedule: YEARLY }));
  });

  it('counts slots from a change of the schedule or of enabled, as PVE does', async () => {
    await create({ id: 'anchor', all: 1 });
    const dueAfter = async () => (await t.dataSource.manager.findOneByOrFail(BackupJobRow, { id: 'anchor' })).dueAfter.getTime();
    const created = await dueAfter();
    dataOf(await call(t, 'PUT', '/cluster/backup/anchor', { form: { comment: 'no schedule change' } }));
    expect(await dueAfter()).toBe(created);
    // A change in a later millisecond than the creation.
    await waitFor(() => Date.now() > created, { timeoutMs: 1000, what: 'the clock to move' });
    dataOf(await call(t, 'PUT', '/cluster/backup/anchor', { form: { schedule: '2199-12-30 23:59' } }));
    expect(await dueAfter()).toBeGreaterThan(created);
  });

  it('answers 404 for a job that does not exist, and deletes one that does', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expectError(
        await call(t, method, '/cluster/backup/ghost', method === 'PUT' ? { form: { comment: 'x' } } : {}),
        404,
        "backup job 'ghost' does not exist",
      );
    }
    await create({ id: 'gone', all: 1 });
    expect(dataOf(await call(t, 'DELETE', '/cluster/backup/gone'))).toBeNull();
    expectError(await call(t, 'GET', '/cluster/backup/gone'), 404, "backup job 'gone' does not exist");
  });
});
