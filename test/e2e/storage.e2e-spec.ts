import { buildBusyboxTemplate, waitFor, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startOnTestDatabase } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';
import { uploadForm } from '../support/upload-form.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'storage-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;
const ISO = randomBytes(3 * 1024 * 1024 + 5);

// A real directory storage on a real agent (its host root a temporary folder).
describe('directory storages on a real agent', () => {
  let cp: ControlPlaneProcess;
  let agent: AgentProcess | undefined;
  let root: string;
  let api: ReturnType<typeof guestApi>;
  const onHost = (path: string) => join(root, 'host1', path);
  const isFolder = (path: string) =>
    stat(onHost(path)).then(
      (found) => found.isDirectory(),
      () => false,
    );
  const upload = async (storage: string, fields: Record<string, string>, name: string, bytes: Buffer) => {
    const { body, type } = uploadForm(fields, name, bytes);
    return data<string>(
      await cp.api.send(`/nodes/host1/storage/${storage}/upload`, {
        method: 'POST',
        headers: { ...api.asRoot, 'content-type': type },
        body,
      }),
    );
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-storage-'));
    cp = await startOnTestDatabase({ env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    agent = await api.onlineNativeAgent(root, 'host1');
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    await agent?.kill();
    await cp?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it("makes local's folders on a node that comes online", async () => {
    await waitFor(
      async () =>
        (await isFolder('var/lib/vz/template/iso')) && (await isFolder('var/lib/vz/dump')) && (await isFolder('var/lib/vz/snippets')),
      { timeoutMs: PATIENCE_MS, what: "local's folders" },
    );
  });

  it('defines a storage, uploads an ISO into it, lists it, shows the space (in /cluster/resources as the agent reports it), deletes it, and removes the storage', async () => {
    expect(data(await api.send('/storage', 'POST', { storage: 'isos', type: 'dir', path: '/srv/isos', content: 'iso,vztmpl' }))).toEqual({
      storage: 'isos',
      type: 'dir',
    });
    expect(await isFolder('srv/isos/template/iso')).toBe(true);
    expect(await isFolder('srv/isos/template/cache')).toBe(true);
    expect(await isFolder('srv/isos/dump')).toBe(false);

    const sha256 = createHash('sha256').update(ISO).digest('hex');
    expect(
      await api.taskEnd(
        'host1',
        await upload('isos', { content: 'iso', checksum: sha256, 'checksum-algorithm': 'sha256' }, 'tiny.iso', ISO),
      ),
    ).toBe('OK');
    expect((await readFile(onHost('srv/isos/template/iso/tiny.iso'))).equals(ISO)).toBe(true);
    // A checksum that does not match leaves nothing behind, not even a temporary file.
    const wrong = await api.taskEnd(
      'host1',
      await upload('isos', { content: 'iso', checksum: '0'.repeat(64), 'checksum-algorithm': 'sha256' }, 'other.iso', ISO),
    );
    expect(wrong).toMatch(/^checksum mismatch: got '[0-9a-f]{64}' != expect '0{64}'/);
    expect(await readdir(onHost('srv/isos/template/iso'))).toEqual(['tiny.iso']);

    const entry = { volid: 'isos:iso/tiny.iso', content: 'iso', format: 'iso', size: ISO.length, ctime: expect.any(Number) };
    expect(data(await api.send('/nodes/host1/storage/isos/content'))).toEqual([entry]);
    expect(data(await api.send('/storage/isos/content'))).toEqual([{ ...entry, node: 'host1' }]);
    const status = data<{ active: number; total: number; used: number; avail: number }>(await api.send('/nodes/host1/storage/isos/status'));
    expect(status).toMatchObject({ storage: 'isos', active: 1, enabled: 1, content: 'iso,vztmpl' });
    expect(status.total).toBeGreaterThan(0);
    expect(status.avail).toBeGreaterThan(0);
    expect(data<{ storage: string; total: number }[]>(await api.send('/storage')).find((each) => each.storage === 'isos')?.total).toBe(
      status.total,
    );
    // The agent reports the new storage's space with its inventory: /cluster/resources asks no agent.
    const listed = async () =>
      data<{ id: string; disk?: number; maxdisk?: number }[]>(await api.send('/cluster/resources?type=storage')).find(
        (each) => each.id === 'storage/host1/isos',
      );
    await waitFor(async () => (await listed())?.maxdisk === status.total, { timeoutMs: PATIENCE_MS, what: "the storage's reported space" });
    expect((await listed())?.disk).toBeGreaterThan(0);

    expect(await api.task('host1', `/nodes/host1/storage/isos/content/${encodeURIComponent('isos:iso/tiny.iso')}`, 'DELETE')).toBe('OK');
    expect(await readdir(onHost('srv/isos/template/iso'))).toEqual([]);
    expect(data(await api.send('/nodes/host1/storage/isos/content'))).toEqual([]);

    expect(data(await api.send('/storage/isos', 'DELETE'))).toBeNull();
    expect((await api.send('/storage/isos')).status).toBe(404);
  });

  it('prunes backups by a retention rule: the dry run, then the files gone with their notes and logs, the protected one kept', async () => {
    expect(
      data(
        await api.send('/storage', 'POST', {
          storage: 'dumps',
          type: 'dir',
          path: '/srv/dumps',
          content: 'backup',
          'prune-backups': 'keep-last=2',
        }),
      ),
    ).toEqual({ storage: 'dumps', type: 'dir' });
    const vm = ['28', '29', '30', '31'].map((day) => `vzdump-qemu-100-2025_01_${day}-02_00_00.vma.zst`);
    const ct = ['30', '31'].map((day) => `vzdump-lxc-101-2025_01_${day}-02_00_00.tar.zst`);
    const dump = (name = '') => onHost(`srv/dumps/dump/${name}`);
    for (const name of [...vm, ...ct]) await writeFile(dump(name), `archive ${name}`);
    await writeFile(dump(`${vm[0] ?? ''}.notes`), 'the oldest');
    await writeFile(dump('vzdump-qemu-100-2025_01_28-02_00_00.log'), 'INFO: starting new backup job');
    await writeFile(dump(`${vm[1] ?? ''}.protected`), '');

    const marks = data<{ volid: string; mark: string; type: string; vmid: number }[]>(
      await api.send('/nodes/host1/storage/dumps/prunebackups'),
    );
    expect(marks.map((entry) => [entry.volid, entry.mark, entry.type, entry.vmid])).toEqual([
      [`dumps:backup/${ct[0] ?? ''}`, 'keep', 'lxc', 101],
      [`dumps:backup/${ct[1] ?? ''}`, 'keep', 'lxc', 101],
      [`dumps:backup/${vm[0] ?? ''}`, 'remove', 'qemu', 100],
      [`dumps:backup/${vm[1] ?? ''}`, 'protected', 'qemu', 100],
      [`dumps:backup/${vm[2] ?? ''}`, 'keep', 'qemu', 100],
      [`dumps:backup/${vm[3] ?? ''}`, 'keep', 'qemu', 100],
    ]);
    expect(await api.task('host1', '/nodes/host1/storage/dumps/prunebackups', 'DELETE')).toBe('OK');
    expect((await readdir(dump())).sort()).toEqual([...ct, vm[1], `${vm[1] ?? ''}.protected`, vm[2], vm[3]].sort());

    // Corral's form: a dry run naming the node, then the prune of one guest's backups.
    const dryRun = data<{ node: string; volid: string; mark: string }[]>(
      await api.send('/storage/dumps/prune', 'POST', { 'dry-run': 1, 'prune-backups': 'keep-last=1', type: 'lxc' }),
    );
    expect(dryRun.map((entry) => [entry.node, entry.volid, entry.mark])).toEqual([
      ['host1', `dumps:backup/${ct[0] ?? ''}`, 'remove'],
      ['host1', `dumps:backup/${ct[1] ?? ''}`, 'keep'],
    ]);
    expect(await api.task('host1', '/storage/dumps/prune', 'POST', { 'prune-backups': 'keep-last=1', vmid: 101 })).toBe('OK');
    expect((await readdir(dump())).sort()).toEqual([ct[1], vm[1], `${vm[1] ?? ''}.protected`, vm[2], vm[3]].sort());
    expect(data(await api.send('/storage/dumps', 'DELETE'))).toBeNull();
  });

  it('serves a proxmoxer script (Debian python3-proxmoxer) that uploads a container template, finds it and deletes it, and prunes backups', async () => {
    const template = join(root, 'busybox.tar.gz');
    await buildBusyboxTemplate(template);
    const backups = ['vzdump-qemu-100-2025_01_30-02_00_00.vma.zst', 'vzdump-qemu-100-2025_01_31-02_00_00.vma.zst'];
    for (const name of backups) await writeFile(onHost(`var/lib/vz/dump/${name}`), name);
    const { stdout } = await run('/usr/bin/python3', [resolve('test/compat/proxmoxer_storage.py')], {
      env: {
        CORRAL_HOST: '127.0.0.1',
        CORRAL_PORT: String(cp.port),
        CORRAL_PASSWORD: ROOT_PASSWORD,
        CORRAL_NODE: 'host1',
        CORRAL_FILE: template,
      },
    }).catch((error: { stderr?: string }) => {
      throw new Error(`the proxmoxer script failed:\n${error.stderr ?? String(error)}`);
    });
    expect(JSON.parse(stdout)).toEqual({
      create: { storage: 'compat', type: 'dir' },
      upload: 'OK',
      content: [['compat:vztmpl/busybox.tar.gz', 'tgz', (await stat(template)).size]],
      delete: 'OK',
      after_delete: [],
      remove: null,
      prune_dry_run: [
        [`local:backup/${backups[0] ?? ''}`, 'remove'],
        [`local:backup/${backups[1] ?? ''}`, 'keep'],
      ],
      prune: 'OK',
      backups_after_prune: [`local:backup/${backups[1] ?? ''}`],
    });
  });
});
