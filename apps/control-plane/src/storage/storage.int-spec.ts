import type { RequestFrame } from '@corral/protocol';
import { waitFor, type FakeAgent, type FakeAnswer } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { PoolsModule } from '../pools/pools.module.js';
import { StorageModule } from './storage.module.js';

const PASSWORD = 'storage-password';
const GIB = 1024 ** 3;
const WAIT = { timeoutMs: 10_000 };

/** What each node's fake agent answers, by command; anything else is an unknown command. */
type Answers = Partial<Record<RequestFrame['command'], (request: RequestFrame, node: string) => FakeAnswer>>;

describe('storages through the API, with fake agents', () => {
  let t: TestApp;
  const agents = new Map<string, FakeAgent>();
  const asked: { node: string; request: RequestFrame }[] = [];
  let answers: Answers = {};
  const defaults: Answers = {
    'storage.activate': () => ({ result: { active: true } }),
    'storage.status': () => ({ result: { active: true, total: 100 * GIB, used: 40 * GIB, avail: 60 * GIB } }),
  };

  const connect = async (node: string, credential: string) => {
    const agent = await onlineAgent(t, node, credential, {
      answer: (request) => {
        asked.push({ node, request });
        const answer = answers[request.command] ?? defaults[request.command];
        return answer ? answer(request, node) : { failure: 'unknown-command', message: request.command };
      },
    });
    agents.set(node, agent);
  };
  const askedFor = (command: string) => asked.filter((each) => each.request.command === command);
  const guest = async (vmid: number, type: 'qemu' | 'lxc', config: Record<string, string>) => {
    await t.app.get(GuestsRepository).insert({ vmid, type, node: 'pve1', config, lock: null });
    await t.app.get(GuestView).reload(vmid);
  };

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, StorageModule, PoolsModule] });
    await connect('pve1', await joinNode(t, 'pve1'));
    await connect('pve2', await joinNode(t, 'pve2'));
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/storage/isos', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
  });
  afterEach(() => {
    answers = {};
    asked.length = 0;
  });
  afterAll(async () => {
    for (const agent of agents.values()) agent.close();
    await t.close();
  });

  it("sets up every storage on a node whose agent comes online: the path and its content kinds' folders", async () => {
    await joinNode(t, 'pve3').then((credential) => connect('pve3', credential));
    await waitFor(() => askedFor('storage.activate').some((each) => each.node === 'pve3'), { ...WAIT, what: 'pve3 to set up local' });
    expect(askedFor('storage.activate').find((each) => each.node === 'pve3')?.request.params).toEqual({
      path: '/var/lib/vz',
      mountpoint: false,
      content: ['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets'],
    });
    agents.get('pve3')?.close();
    agents.delete('pve3');
  });

  it("defines a dir storage on its nodes, shows it as PVE with Corral's sizes, changes it with a digest and removes it", async () => {
    expect(
      dataOf(
        await call(t, 'POST', '/storage', {
          form: { storage: 'isos', type: 'dir', path: '/srv/isos/', content: 'iso,vztmpl', nodes: 'pve1,pve2', 'is-rootdir': 0 },
        }),
      ),
    ).toEqual({ storage: 'isos', type: 'dir' });
    expect(askedFor('storage.activate').map((each) => [each.node, each.request.params])).toEqual(
      expect.arrayContaining([
        ['pve1', { path: '/srv/isos', mountpoint: false, content: ['vztmpl', 'iso'] }],
        ['pve2', { path: '/srv/isos', mountpoint: false, content: ['vztmpl', 'iso'] }],
      ]),
    );
    const entry = dataOf<Record<string, unknown>>(await call(t, 'GET', '/storage/isos'));
    expect(entry).toEqual({
      storage: 'isos',
      type: 'dir',
      path: '/srv/isos',
      content: 'iso,vztmpl',
      nodes: 'pve1,pve2',
      shared: 0,
      enabled: 1,
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });

    // Two nodes' local file systems add up; a shared storage counts once.
    const list = dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/storage'));
    expect(list.find((each) => each.storage === 'isos')).toEqual({
      ...entry,
      total: 200 * GIB,
      used: 80 * GIB,
      avail: 120 * GIB,
      active: 1,
    });
    expect(
      dataOf(await call(t, 'PUT', '/storage/isos', { form: { shared: 1, 'prune-backups': 'keep-last=3', digest: String(entry.digest) } })),
    ).toEqual({ storage: 'isos', type: 'dir' });
    expect(dataOf(await call(t, 'GET', '/storage', { query: 'type=dir' }))).toContainEqual(
      expect.objectContaining({ storage: 'isos', shared: 1, 'prune-backups': 'keep-last=3', total: 100 * GIB, avail: 60 * GIB }),
    );
    expectError(
      await call(t, 'PUT', '/storage/isos', { form: { disable: 1, digest: String(entry.digest) } }),
      409,
      "storage 'isos' was changed since the digest you sent",
    );
    expect(dataOf(await call(t, 'PUT', '/storage/isos', { form: { delete: 'shared,prune-backups', is_mountpoint: 'yes' } }))).toEqual({
      storage: 'isos',
      type: 'dir',
    });
    expect(dataOf(await call(t, 'GET', '/storage/isos'))).toEqual({
      ...entry,
      is_mountpoint: 'yes',
      digest: expect.not.stringMatching(String(entry.digest)),
    });
    expect(askedFor('storage.activate').at(-1)?.request.params).toEqual({
      path: '/srv/isos',
      mountpoint: true,
      content: ['vztmpl', 'iso'],
    });

    expect(dataOf(await call(t, 'DELETE', '/storage/isos'))).toBeNull();
    expectError(await call(t, 'GET', '/storage/isos'), 404, "storage 'isos' does not exist");
  });

  it('refuses types it does not implement, system folders, unknown content kinds and a second storage of one id, storing nothing', async () => {
    expectError(await call(t, 'POST', '/storage', { form: { storage: 'thin', type: 'lvmthin', vgname: 'pve' } }), 400, '', 'vgname');
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'thin', type: 'lvmthin' } }),
      400,
      "storage type 'lvmthin' is not supported by Corral yet",
      'type',
    );
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'etc', type: 'dir', path: '/etc/pve' } }),
      400,
      "'/etc/pve' is in the host's system folder /etc",
      'path',
    );
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'up', type: 'dir', path: '/srv/../etc' } }),
      400,
      'without . or .. segments',
      'path',
    );
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'nopath', type: 'dir' } }),
      400,
      "parameter 'path' is missing",
      'path',
    );
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'dvd', type: 'dir', path: '/srv/dvd', content: 'iso,dvd' } }),
      400,
      "unknown content kind 'dvd'",
      'content',
    );
    expectError(
      await call(t, 'POST', '/storage', {
        form: { storage: 'keep', type: 'dir', path: '/srv/keep', 'prune-backups': 'keep-all=1,keep-last=2' },
      }),
      400,
      'cannot be combined',
      'prune-backups',
    );
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'local', type: 'dir', path: '/srv/local' } }),
      409,
      "storage 'local' already exists",
    );
    expect(dataOf<{ storage: string }[]>(await call(t, 'GET', '/storage')).map((each) => each.storage)).toEqual(['local']);
    expect(askedFor('storage.activate')).toEqual([]);
  });

  it('stores nothing when a node cannot set the storage up, naming the node and its reason', async () => {
    answers['storage.activate'] = (_request, node) =>
      node === 'pve2' ? { failure: 'failed', message: "mkdir '/srv/full': No space left on device" } : { result: { active: true } };
    expectError(
      await call(t, 'POST', '/storage', { form: { storage: 'full', type: 'dir', path: '/srv/full' } }),
      500,
      "storage 'full' cannot be set up on node 'pve2': mkdir '/srv/full': No space left on device",
    );
    expectError(await call(t, 'GET', '/storage/full'), 404, "storage 'full' does not exist");
  });

  it("keeps a storage that guests' configurations name, unless forced", async () => {
    expect(dataOf(await call(t, 'POST', '/storage', { form: { storage: 'fast', type: 'dir', path: '/srv/fast' } }))).toEqual({
      storage: 'fast',
      type: 'dir',
    });
    await guest(150, 'qemu', { scsi0: 'fast:150/vm-150-disk-0.qcow2,size=1G' });
    await guest(151, 'lxc', { rootfs: 'fast:151/subvol-151-disk-0,size=4G' });
    expectError(await call(t, 'DELETE', '/storage/fast'), 409, "storage 'fast' holds volumes of VM 150 (scsi0), CT 151 (rootfs)");
    expect(dataOf(await call(t, 'DELETE', '/storage/fast', { query: 'force=1' }))).toBeNull();
    expectError(await call(t, 'GET', '/storage/fast'), 404, 'does not exist');
  });

  it("lists a node's storages with its sizes and PVE's filters, and a storage's status on a node or over the cluster", async () => {
    dataOf(
      await call(t, 'POST', '/storage', { form: { storage: 'only2', type: 'dir', path: '/srv/only2', content: 'backup', nodes: 'pve2' } }),
    );
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'off', type: 'dir', path: '/srv/off', content: 'iso', disable: 1 } }));
    const local = {
      storage: 'local',
      type: 'dir',
      content: 'backup,images,iso,rootdir,snippets,vztmpl',
      shared: 0,
      enabled: 1,
      active: 1,
      total: 100 * GIB,
      used: 40 * GIB,
      avail: 60 * GIB,
      used_fraction: 0.4,
    };
    const off = {
      storage: 'off',
      type: 'dir',
      content: 'iso',
      shared: 0,
      enabled: 0,
      active: 0,
      total: 0,
      used: 0,
      avail: 0,
      used_fraction: 0,
    };
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage'))).toEqual([local, off]);
    expect(dataOf<{ storage: string }[]>(await call(t, 'GET', '/nodes/pve2/storage')).map((each) => each.storage)).toEqual([
      'local',
      'off',
      'only2',
    ]);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage', { query: 'enabled=1' }))).toEqual([local]);
    expect(
      dataOf<{ storage: string }[]>(await call(t, 'GET', '/nodes/pve2/storage', { query: 'content=backup,vztmpl' })).map(
        (each) => each.storage,
      ),
    ).toEqual(['local', 'only2']);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage', { query: 'storage=off' }))).toEqual([off]);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage', { query: 'target=pve2' }))).toEqual([]);

    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/local/status'))).toEqual(local);
    expect(dataOf(await call(t, 'GET', '/storage/local/status'))).toEqual({ ...local, total: 200 * GIB, used: 80 * GIB, avail: 120 * GIB });
    expect(dataOf(await call(t, 'GET', '/storage/local/status', { query: 'node=pve2' }))).toEqual(local);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/local'))).toEqual([
      { subdir: 'content' },
      { subdir: 'download-url' },
      { subdir: 'prunebackups' },
      { subdir: 'rrd' },
      { subdir: 'rrddata' },
      { subdir: 'status' },
      { subdir: 'upload' },
    ]);
    expectError(
      await call(t, 'GET', '/nodes/pve1/storage/only2/status'),
      404,
      "storage 'only2' does not exist on node 'pve1': it is defined for pve2 only",
    );
    expectError(await call(t, 'GET', '/nodes/ghost/storage'), 404, "node 'ghost' does not exist");
  });

  it('lists a storage in /cluster/resources once for each node it is defined for (sizes as the inventories report them)', async () => {
    dataOf(
      await call(t, 'POST', '/storage', { form: { storage: 'sized', type: 'dir', path: '/srv/sized', content: 'backup', nodes: 'pve2' } }),
    );
    const storages = dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=storage' })).filter(
      // pve3's agent left in the first test.
      (each) => each.node !== 'pve3' && (each.storage === 'local' || each.storage === 'sized'),
    );
    const entry = { type: 'storage', plugintype: 'dir', status: 'available', shared: 0 };
    expect(storages).toEqual([
      { ...entry, id: 'storage/pve1/local', node: 'pve1', storage: 'local', content: 'images,rootdir,vztmpl,iso,backup,snippets' },
      { ...entry, id: 'storage/pve2/local', node: 'pve2', storage: 'local', content: 'images,rootdir,vztmpl,iso,backup,snippets' },
      { ...entry, id: 'storage/pve2/sized', node: 'pve2', storage: 'sized', content: 'backup' },
    ]);
  });

  it('takes a removed storage out of its pools', async () => {
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'pooled', type: 'dir', path: '/srv/pooled' } }));
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'tier' } }));
    dataOf(await call(t, 'PUT', '/pools/tier', { form: { storage: 'pooled,local' } }));
    expect(dataOf<{ members: { id: string }[] }>(await call(t, 'GET', '/pools/tier')).members.map((member) => member.id)).toEqual([
      'storage/pve1/local',
      'storage/pve1/pooled',
    ]);
    expect(dataOf(await call(t, 'DELETE', '/storage/pooled'))).toBeNull();
    expect(dataOf<{ members: { id: string }[] }>(await call(t, 'GET', '/pools/tier')).members.map((member) => member.id)).toEqual([
      'storage/pve1/local',
    ]);
  });

  it('shows only the storages a caller may audit', async () => {
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'isos', type: 'dir', path: '/srv/isos', content: 'iso' } }));
    const auditor = basic('auditor@pve', PASSWORD);
    expect(dataOf<{ storage: string }[]>(await call(t, 'GET', '/storage', { as: auditor })).map((each) => each.storage)).toEqual(['isos']);
    expect(dataOf<{ storage: string }[]>(await call(t, 'GET', '/nodes/pve1/storage', { as: auditor })).map((each) => each.storage)).toEqual(
      ['isos'],
    );
    expectError(await call(t, 'GET', '/nodes/pve1/storage/local/status', { as: auditor }), 403, 'permission denied');
    // PVE: reading a definition needs Datastore.Allocate.
    expectError(await call(t, 'GET', '/storage/isos', { as: auditor }), 403, 'permission denied');
  });

  it('lists the files of a node, or of every node naming each, and removes an unused volume in an imgdel task', async () => {
    const iso = { volid: 'local:iso/debian.iso', content: 'iso', format: 'iso', size: 4096, ctime: 1_700_000_000 };
    const backup = {
      volid: 'local:backup/vzdump-qemu-160-2025_01_31-02_00_00.vma.zst',
      content: 'backup',
      format: 'vma.zst',
      size: 99,
      ctime: 1_738_288_800,
      vmid: 160,
      subtype: 'qemu',
      protected: true,
    };
    answers['storage.content'] = () => ({ result: [backup, iso] });
    const { protected: _flag, ...unprotected } = backup;
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/local/content'))).toEqual([{ ...unprotected, protected: 1 }, iso]);
    expect(askedFor('storage.content').at(-1)?.request.params).toEqual({
      storage: 'local',
      path: '/var/lib/vz',
      mountpoint: false,
      content: ['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets'],
    });
    await call(t, 'GET', '/nodes/pve1/storage/local/content', { query: 'content=backup&vmid=160' });
    expect(askedFor('storage.content').at(-1)?.request.params).toEqual({
      storage: 'local',
      path: '/var/lib/vz',
      mountpoint: false,
      content: ['backup'],
      vmid: 160,
    });
    expect(
      dataOf<{ node: string; volid: string }[]>(await call(t, 'GET', '/storage/local/content')).map((each) => `${each.node} ${each.volid}`),
    ).toEqual([`pve1 ${backup.volid}`, `pve1 ${iso.volid}`, `pve2 ${backup.volid}`, `pve2 ${iso.volid}`]);
    expect(dataOf(await call(t, 'GET', `/nodes/pve1/storage/local/content/${encodeURIComponent(iso.volid)}`))).toEqual({
      path: '/var/lib/vz/template/iso/debian.iso',
      size: 4096,
      used: 4096,
      format: 'iso',
    });
    expectError(
      await call(t, 'GET', `/nodes/pve1/storage/local/content/${encodeURIComponent('iso/other.iso')}`),
      404,
      "volume 'local:iso/other.iso' does not exist on node 'pve1'",
    );
    // The rest of the path is the volume id, as PVE reads it: raw `/` (proxmoxer, Ansible) or `%2F` (bpg).
    const shown = { path: '/var/lib/vz/template/iso/debian.iso', size: 4096, used: 4096, format: 'iso' };
    expect(dataOf(await call(t, 'GET', `/nodes/pve1/storage/local/content/${iso.volid}`))).toEqual(shown);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/local/content/iso/debian.iso'))).toEqual(shown);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/storage/local/content/local:iso%2Fdebian.iso'))).toEqual(shown);
    expectError(
      await call(t, 'GET', '/nodes/pve1/storage/local/content/local:iso/other.iso'),
      404,
      "volume 'local:iso/other.iso' does not exist on node 'pve1'",
    );

    answers['storage.volume.delete'] = () => ({ result: null });
    const upid = dataOf<string>(await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${encodeURIComponent(iso.volid)}`));
    expect(upid).toMatch(/:imgdel:local:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(askedFor('storage.volume.delete').at(-1)?.request).toMatchObject({
      upid,
      params: { path: '/var/lib/vz', mountpoint: false, file: 'template/iso/debian.iso' },
    });
    expect(dataOf(await call(t, 'GET', `/nodes/pve1/tasks/${encodeURIComponent(upid)}/log`))).toEqual([
      { n: 1, t: "Removed volume 'local:iso/debian.iso'" },
      { n: 2, t: 'TASK OK' },
    ]);
    expect(dataOf(await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${backup.volid}`, { query: 'delay=5' }))).toBeNull();
    expect(askedFor('storage.volume.delete').at(-1)?.request.params).toEqual({
      path: '/var/lib/vz',
      mountpoint: false,
      file: `dump/${backup.volid.slice('local:backup/'.length)}`,
    });
    answers['storage.volume.delete'] = () => ({ failure: 'failed', message: `backup ${backup.volid} is protected` });
    expectError(
      await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${encodeURIComponent(backup.volid)}`, { query: 'delay=5' }),
      500,
      'is protected',
    );
  });

  it("refuses to remove a volume a guest's configuration names, or one of another storage", async () => {
    await guest(170, 'qemu', { ide2: 'local:iso/install.iso,media=cdrom', scsi0: 'local:170/base-170-disk-0.qcow2,size=1G' });
    await guest(171, 'qemu', { scsi0: 'local:170/base-170-disk-0.qcow2/171/vm-171-disk-0.qcow2,size=1G' });
    expectError(
      await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${encodeURIComponent('local:iso/install.iso')}`),
      409,
      "volume 'local:iso/install.iso' is used by VM 170 (ide2)",
    );
    expectError(
      await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${encodeURIComponent('170/base-170-disk-0.qcow2')}`),
      409,
      'is used by VM 170 (scsi0), VM 171 (scsi0)',
    );
    expectError(
      await call(t, 'DELETE', '/nodes/pve1/storage/local/content/local:170/base-170-disk-0.qcow2/171/vm-171-disk-0.qcow2'),
      409,
      'is used by VM 171 (scsi0)',
    );
    expectError(await call(t, 'DELETE', '/nodes/pve1/storage/local/content/'), 400, "parameter 'volume'", 'volume');
    expectError(
      await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${encodeURIComponent('isos:iso/install.iso')}`),
      400,
      "volume 'isos:iso/install.iso' is not on storage 'local'",
      'volume',
    );
    expectError(
      await call(t, 'DELETE', `/nodes/pve1/storage/local/content/${encodeURIComponent('iso/../../etc/passwd')}`),
      400,
      'is not a volume of a directory storage',
      'volume',
    );
    expect(askedFor('storage.volume.delete')).toEqual([]);
  });
});
