import type { RequestFrame, StorageVolume } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { BackupPruner, PRUNE_FAILED } from './backup-pruner.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { StorageModule } from './storage.module.js';

const PASSWORD = 'prune-password';
const ARCHIVE = /^vzdump-(qemu|lxc)-(\d+)-(\d{4})_(\d{2})_(\d{2})-(\d{2})_(\d{2})_(\d{2})\.(.+)$/;

/** A backup file in a storage's `dump/` on a node; `utcOffsetH` is the node's time zone (its agent reads the name's time as local time). */
interface BackupFile {
  readonly name: string;
  readonly protected?: boolean;
  readonly utcOffsetH?: number;
}

/** PVE's example: keep-last=2 over four backups of VM 100 and two of CT 101. */
const EXAMPLE: readonly BackupFile[] = [
  { name: 'vzdump-qemu-100-2025_01_28-02_00_00.vma.zst' },
  { name: 'vzdump-qemu-100-2025_01_29-02_00_00.vma.zst' },
  { name: 'vzdump-qemu-100-2025_01_30-02_00_00.vma.zst' },
  { name: 'vzdump-qemu-100-2025_01_31-02_00_00.vma.zst' },
  { name: 'vzdump-lxc-101-2025_01_30-02_00_00.tar.zst' },
  { name: 'vzdump-lxc-101-2025_01_31-02_00_00.tar.zst' },
];

/** What the agent's `storage.content` lists for a backup file. */
function volumeOf(storage: string, file: BackupFile): StorageVolume {
  const [, subtype = '', vmid, year, month, day, hour, minute, second, format = ''] = ARCHIVE.exec(file.name) ?? [];
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) / 1000;
  return {
    volid: `${storage}:backup/${file.name}`,
    content: 'backup',
    format,
    size: 1,
    ctime: local - (file.utcOffsetH ?? 0) * 3600,
    vmid: Number(vmid),
    subtype: subtype === 'qemu' ? 'qemu' : 'lxc',
    ...(file.protected ? { protected: true } : {}),
  };
}

const marked = (storage: string, marks: Record<string, string>) =>
  Object.entries(marks).map(([name, mark]) => ({
    volid: `${storage}:backup/${name}`,
    ctime: volumeOf(storage, { name }).ctime,
    mark,
    type: name.includes('-qemu-') ? 'qemu' : 'lxc',
    vmid: Number(name.split('-')[2]),
  }));

describe('pruning backups, through fake agents that keep backup files', () => {
  let t: TestApp;
  const agents: FakeAgent[] = [];
  /** The backup files of each node's storage folder, by `<node>:<path>`. */
  const files = new Map<string, BackupFile[]>();
  /** Names the agents fail to remove. */
  const stuck = new Set<string>();
  const deleted: { node: string; file: string }[] = [];

  const place = (node: string, path: string, backups: readonly BackupFile[]) => files.set(`${node}:${path}`, [...backups]);
  const namesOn = (node: string, path: string) => (files.get(`${node}:${path}`) ?? []).map((file) => file.name);

  const answer = (request: RequestFrame, node: string): FakeAnswer => {
    if (request.command === 'storage.activate') return { result: { active: true } };
    if (request.command === 'storage.content') {
      const { storage, path, vmid } = request.params as { storage: string; path: string; vmid?: number };
      const volumes = (files.get(`${node}:${path}`) ?? [])
        .map((file) => volumeOf(storage, file))
        .filter((volume) => vmid === undefined || volume.vmid === vmid);
      // Sorted by volume id, as the agent lists them.
      return { result: volumes.sort((a, b) => a.volid.localeCompare(b.volid)) };
    }
    if (request.command === 'storage.volume.delete') {
      const { path, file } = request.params as { path: string; file: string };
      const name = file.slice('dump/'.length);
      const held = files.get(`${node}:${path}`) ?? [];
      const found = held.find((each) => each.name === name);
      if (!found) return { failure: 'failed', message: `volume ${path}/${file} does not exist` };
      if (found.protected) return { failure: 'failed', message: `backup ${file} is protected: remove its protection first` };
      if (stuck.has(name)) return { failure: 'failed', message: `rm ${path}/${file}: Permission denied` };
      deleted.push({ node, file });
      files.set(
        `${node}:${path}`,
        held.filter((each) => each !== found),
      );
      return { result: null };
    }
    return { failure: 'unknown-command', message: request.command };
  };
  const logOf = async (node: string, upid: string) =>
    dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/log`)).map((line) => line.t);

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, StorageModule] });
    for (const node of ['pve1', 'pve2'])
      agents.push(await onlineAgent(t, node, await joinNode(t, node), { answer: (request) => answer(request, node) }));
    dataOf(
      await call(t, 'POST', '/storage', {
        form: { storage: 'dumps', type: 'dir', path: '/srv/dumps', content: 'backup', 'prune-backups': 'keep-last=2' },
      }),
    );
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/storage/dumps', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    await addUser(t, 'backup@pve', { password: PASSWORD });
    await grant(t, { path: '/storage/dumps', type: 'user', ugid: 'backup@pve', roleid: 'PVEDatastoreUser' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'backup@pve', roleid: 'PVEVMUser' });
  });
  beforeEach(() => {
    files.clear();
    stuck.clear();
    deleted.length = 0;
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await t.close();
  });

  it("marks each guest's backups by the retention, per guest and type, as PVE's dry run answers", async () => {
    place('pve1', '/srv/dumps', EXAMPLE);
    const expected = marked('dumps', {
      'vzdump-lxc-101-2025_01_30-02_00_00.tar.zst': 'keep',
      'vzdump-lxc-101-2025_01_31-02_00_00.tar.zst': 'keep',
      'vzdump-qemu-100-2025_01_28-02_00_00.vma.zst': 'remove',
      'vzdump-qemu-100-2025_01_29-02_00_00.vma.zst': 'remove',
      'vzdump-qemu-100-2025_01_30-02_00_00.vma.zst': 'keep',
      'vzdump-qemu-100-2025_01_31-02_00_00.vma.zst': 'keep',
    });
    // The storage's own retention (keep-last=2), or the one given.
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups'))).toEqual(expected);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { query: 'prune-backups=keep-last%3D2' }))).toEqual(
      expected,
    );
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { query: 'type=lxc' }))).toEqual(expected.slice(0, 2));
    expect(
      dataOf(await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { query: 'vmid=100&prune-backups=keep-last%3D3' })),
    ).toEqual(expected.slice(2).map((entry, i) => ({ ...entry, mark: i === 0 ? 'remove' : 'keep' })));
    expect(
      dataOf<{ mark: string }[]>(
        await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { query: 'prune-backups=keep-all%3D1' }),
      ).map((entry) => entry.mark),
    ).toEqual(Array(6).fill('keep'));
    // Nothing was removed by looking.
    expect(deleted).toEqual([]);
  });

  it('never removes a protected backup, which counts for no rule, and removes the others marked in a prunebackups task', async () => {
    place(
      'pve1',
      '/srv/dumps',
      EXAMPLE.map((file) => (file.name.includes('-100-2025_01_30') ? { ...file, protected: true } : file)),
    );
    const marks = dataOf<{ volid: string; mark: string }[]>(
      await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { query: 'vmid=100' }),
    );
    expect(marks.map((entry) => entry.mark)).toEqual(['remove', 'keep', 'protected', 'keep']);

    const upid = dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/storage/dumps/prunebackups'));
    expect(upid).toMatch(/^UPID:pve1:.*:prunebackups:dumps:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(await logOf('pve1', upid)).toEqual(["removing backup 'dumps:backup/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst'", 'TASK OK']);
    expect(namesOn('pve1', '/srv/dumps')).toEqual(
      EXAMPLE.map((file) => file.name).filter((name) => name !== 'vzdump-qemu-100-2025_01_28-02_00_00.vma.zst'),
    );
    expect(deleted).toEqual([{ node: 'pve1', file: 'dump/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst' }]);
  });

  it('removes the others when one backup cannot be removed, then fails as PVE does, the failure in the log', async () => {
    place('pve1', '/srv/dumps', EXAMPLE);
    stuck.add('vzdump-qemu-100-2025_01_28-02_00_00.vma.zst');
    const upid = dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/storage/dumps/prunebackups', { query: 'vmid=100&type=qemu' }));
    expect(upid).toMatch(/:prunebackups:100@dumps:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe(PRUNE_FAILED);
    expect(await logOf('pve1', upid)).toEqual([
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst'",
      "error when removing backup 'dumps:backup/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst' - rm /srv/dumps/dump/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst: Permission denied",
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_29-02_00_00.vma.zst'",
      `TASK ERROR: ${PRUNE_FAILED}`,
    ]);
    expect(namesOn('pve1', '/srv/dumps')).toHaveLength(5);
  });

  it("reads hours, days and weeks on the node's clock, from the archives' names", async () => {
    // On a node at UTC+2, 23:30 and 00:30 are two days; in UTC both are January 30th.
    place('pve1', '/srv/dumps', [
      { name: 'vzdump-qemu-100-2025_01_30-23_30_00.vma.zst', utcOffsetH: 2 },
      { name: 'vzdump-qemu-100-2025_01_31-00_30_00.vma.zst', utcOffsetH: 2 },
    ]);
    const marks = dataOf<{ mark: string; ctime: number }[]>(
      await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { query: 'prune-backups=keep-daily%3D2' }),
    );
    expect(marks).toEqual([
      expect.objectContaining({ mark: 'keep', ctime: Date.UTC(2025, 0, 30, 21, 30) / 1000 }),
      expect.objectContaining({ mark: 'keep', ctime: Date.UTC(2025, 0, 30, 22, 30) / 1000 }),
    ]);
  });

  it('refuses bad or missing retention, unknown storages and nodes, and storages without backups, naming the parameter', async () => {
    const prunebackups = (storage: string, query: string, method = 'GET', node = 'pve1') =>
      call(t, method, `/nodes/${node}/storage/${storage}/prunebackups`, { query });
    expectError(
      await prunebackups('dumps', 'prune-backups=keep-all%3D1,keep-last%3D2'),
      400,
      'keep-all cannot be combined with keep-last',
      'prune-backups',
    );
    expectError(
      await prunebackups('dumps', 'prune-backups=keep-last%3D1,keep-last%3D2', 'DELETE'),
      400,
      'keep-last is given twice',
      'prune-backups',
    );
    expectError(await prunebackups('dumps', 'prune-backups=keep-lasts%3D1'), 400, "unknown retention option 'keep-lasts'", 'prune-backups');
    expectError(
      await call(t, 'POST', '/storage/dumps/prune', { form: { 'prune-backups': 'keep-daily=-1' } }),
      400,
      "keep-daily must be a whole number of 0 or more, not '-1'",
      'prune-backups',
    );
    expectError(await prunebackups('dumps', 'type=openvz'), 400, '', 'type');
    expectError(await prunebackups('dumps', 'vmid=99'), 400, '', 'vmid');
    expectError(await prunebackups('nosuch', ''), 404, "storage 'nosuch' does not exist");
    expectError(await prunebackups('nosuch', '', 'DELETE'), 404, "storage 'nosuch' does not exist");
    expectError(await call(t, 'POST', '/storage/nosuch/prune'), 404, "storage 'nosuch' does not exist");
    expectError(await prunebackups('dumps', '', 'GET', 'ghost'), 404, "node 'ghost' does not exist");
    // `local` has no retention of its own (PVE: "no prune-backups options configured").
    expectError(await prunebackups('local', ''), 400, "no prune-backups options configured for storage 'local'", 'prune-backups');
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'isos', type: 'dir', path: '/srv/isos', content: 'iso', nodes: 'pve2' } }));
    expectError(
      await prunebackups('isos', 'prune-backups=keep-last%3D1', 'GET', 'pve2'),
      400,
      "storage 'isos' does not hold backups (content 'backup')",
      'storage',
    );
    expectError(
      await prunebackups('isos', 'prune-backups=keep-last%3D1', 'DELETE', 'pve2'),
      400,
      "storage 'isos' does not hold backups (content 'backup')",
      'storage',
    );
    expectError(await prunebackups('isos', 'prune-backups=keep-last%3D1'), 404, "storage 'isos' does not exist on node 'pve1'");
    expect(deleted).toEqual([]);
  });

  it('lets an auditor look but not prune; Datastore.AllocateSpace with VM.Backup prunes that guest only (PVE)', async () => {
    place('pve1', '/srv/dumps', EXAMPLE);
    const auditor = basic('auditor@pve', PASSWORD);
    const backup = basic('backup@pve', PASSWORD);
    expect(dataOf<unknown[]>(await call(t, 'GET', '/nodes/pve1/storage/dumps/prunebackups', { as: auditor }))).toHaveLength(6);
    expect(dataOf<unknown[]>(await call(t, 'POST', '/storage/dumps/prune', { form: { 'dry-run': 1 }, as: auditor }))).toHaveLength(6);
    expectError(await call(t, 'DELETE', '/nodes/pve1/storage/dumps/prunebackups', { as: auditor }), 403, 'permission denied');
    expectError(await call(t, 'POST', '/storage/dumps/prune', { as: auditor }), 403, 'permission denied');
    expectError(await call(t, 'DELETE', '/nodes/pve1/storage/dumps/prunebackups', { as: backup }), 403, 'permission denied');
    expectError(
      await call(t, 'DELETE', '/nodes/pve1/storage/dumps/prunebackups', { query: 'vmid=101', as: backup }),
      403,
      'permission denied',
    );
    expect(deleted).toEqual([]);
    const upid = dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/storage/dumps/prunebackups', { query: 'vmid=100', as: backup }));
    expect(upid).toMatch(/:prunebackups:100@dumps:backup@pve:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(deleted.map((each) => each.file)).toEqual([
      'dump/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst',
      'dump/vzdump-qemu-100-2025_01_29-02_00_00.vma.zst',
    ]);
  });

  it('checks permission before the storage: a caller without it learns neither whether a storage exists nor how it is set up', async () => {
    const auditor = basic('auditor@pve', PASSWORD);
    for (const storage of ['dumps', 'no-such-storage']) {
      expectError(
        await call(t, 'POST', `/storage/${storage}/prune`, { form: { 'prune-backups': 'keep-nonsense=1' }, as: auditor }),
        403,
        'permission denied',
      );
      expectError(await call(t, 'DELETE', `/nodes/pve1/storage/${storage}/prunebackups`, { as: auditor }), 403, 'permission denied');
    }
    expectError(await call(t, 'POST', '/storage/no-such-storage/prune', { form: { 'dry-run': 1 }, as: auditor }), 403, 'permission denied');
  });

  it("prunes on every node that holds the storage with Corral's POST /storage/{storage}/prune, or on one node, or looks first with dry-run", async () => {
    place('pve1', '/srv/dumps', EXAMPLE);
    place('pve2', '/srv/dumps', EXAMPLE.slice(1, 4));
    const dryRun = dataOf<{ node: string; volid: string; mark: string }[]>(
      await call(t, 'POST', '/storage/dumps/prune', { form: { 'dry-run': 1, vmid: 100 } }),
    );
    expect(
      dryRun.map(
        (entry) => `${entry.node} ${entry.volid.slice('dumps:backup/vzdump-qemu-100-'.length, -'-02_00_00.vma.zst'.length)} ${entry.mark}`,
      ),
    ).toEqual([
      'pve1 2025_01_28 remove',
      'pve1 2025_01_29 remove',
      'pve1 2025_01_30 keep',
      'pve1 2025_01_31 keep',
      'pve2 2025_01_29 remove',
      'pve2 2025_01_30 keep',
      'pve2 2025_01_31 keep',
    ]);
    expect(
      dataOf<{ node: string }[]>(await call(t, 'POST', '/storage/dumps/prune', { form: { 'dry-run': 1, node: 'pve2' } })).map(
        (entry) => entry.node,
      ),
    ).toEqual(['pve2', 'pve2', 'pve2']);
    expect(deleted).toEqual([]);

    const upid = dataOf<string>(await call(t, 'POST', '/storage/dumps/prune', { form: { 'prune-backups': 'keep-last=1', type: 'qemu' } }));
    expect(upid).toMatch(/^UPID:pve1:.*:prunebackups:dumps:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(await logOf('pve1', upid)).toEqual([
      "pruning backups of storage 'dumps' on node 'pve1'",
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst'",
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_29-02_00_00.vma.zst'",
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_30-02_00_00.vma.zst'",
      "pruning backups of storage 'dumps' on node 'pve2'",
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_29-02_00_00.vma.zst'",
      "removing backup 'dumps:backup/vzdump-qemu-100-2025_01_30-02_00_00.vma.zst'",
      'TASK OK',
    ]);
    expect(namesOn('pve1', '/srv/dumps')).toEqual([EXAMPLE[3]?.name, EXAMPLE[4]?.name, EXAMPLE[5]?.name]);
    expect(namesOn('pve2', '/srv/dumps')).toEqual([EXAMPLE[3]?.name]);

    place('pve2', '/srv/dumps', EXAMPLE);
    const one = dataOf<string>(await call(t, 'POST', '/storage/dumps/prune', { form: { node: 'pve2' } }));
    expect(one).toMatch(/^UPID:pve2:.*:prunebackups:dumps:root@pam:$/);
    expect(await finished(t, 'pve2', one)).toBe('OK');
    expect(namesOn('pve2', '/srv/dumps')).toHaveLength(4);
  });

  it('prunes a shared storage on one node only: every node sees the same files', async () => {
    dataOf(
      await call(t, 'POST', '/storage', {
        form: { storage: 'nfs', type: 'dir', path: '/mnt/nfs', content: 'backup', shared: 1, 'prune-backups': 'keep-last=1' },
      }),
    );
    place('pve1', '/mnt/nfs', EXAMPLE.slice(0, 2));
    place('pve2', '/mnt/nfs', EXAMPLE.slice(0, 2));
    expect(
      dataOf<{ node: string }[]>(await call(t, 'POST', '/storage/nfs/prune', { form: { 'dry-run': 1 } })).map((entry) => entry.node),
    ).toEqual(['pve1', 'pve1']);
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/storage/nfs/prune')))).toBe('OK');
    expect(deleted).toEqual([{ node: 'pve1', file: `dump/${EXAMPLE[0]?.name}` }]);
  });

  it("applies a backup run's retention to one guest with the pruner, the storage's when the run has none, keeping all without either", async () => {
    place('pve1', '/srv/dumps', EXAMPLE);
    const pruner = t.app.get(BackupPruner);
    const storages = t.app.get(StoragesRepository);
    const lines: string[] = [];
    const storage = await storages.find('dumps');
    if (!storage) throw new Error('dumps is missing');

    const kept = await pruner.prune('pve1', { ...storage, pruneBackups: null }, { vmid: 100, type: 'qemu' }, undefined, (line) =>
      lines.push(line),
    );
    expect(kept.map((entry) => entry.mark)).toEqual(['keep', 'keep', 'keep', 'keep']);
    expect(lines).toEqual([]);

    const byStorage = await pruner.prune('pve1', storage, { vmid: 101, type: 'lxc' }, undefined, (line) => lines.push(line));
    expect(byStorage.map((entry) => entry.mark)).toEqual(['keep', 'keep']);
    const byRun = await pruner.prune('pve1', storage, { vmid: 100, type: 'qemu' }, { 'keep-last': 3 }, (line) => lines.push(line));
    expect(byRun.map((entry) => entry.mark)).toEqual(['remove', 'keep', 'keep', 'keep']);
    expect(lines).toEqual(["removing backup 'dumps:backup/vzdump-qemu-100-2025_01_28-02_00_00.vma.zst'"]);
    expect(namesOn('pve1', '/srv/dumps')).toEqual(EXAMPLE.slice(1).map((file) => file.name));
  });
});
