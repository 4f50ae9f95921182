import { buildBusyboxTemplate, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi, guestEvents, type Form } from '../support/guest-api.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'backups-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 120_000;

interface ContentEntry {
  volid: string;
  content: string;
  format: string;
  size: number;
  vmid?: number;
  subtype?: string;
  notes?: string;
}

// Backups: a real running VM backed up in snapshot mode and a container,
// both through a real agent on the native driver, restored from their archives after the guests
// were deleted, with the same config and disk content; then a retention rule prunes them.
describe('backups and restores on the native driver', () => {
  let cp: ControlPlaneProcess;
  let db: pg.Client;
  let agent: AgentProcess | undefined;
  let root: string;
  let api: ReturnType<typeof guestApi>;
  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);
  const task = (path: string, method?: string, form?: Form) => api.task('host1', path, method, form);
  const onHost = (path: string) => join(root, 'host1', path);
  const events = () => guestEvents(db);
  const backups = async (vmid?: number) =>
    data<ContentEntry[]>(await send(`/nodes/host1/storage/backups/content?content=backup${vmid === undefined ? '' : `&vmid=${vmid}`}`));
  const configOf = async (type: 'qemu' | 'lxc', vmid: number) => {
    const { digest: _digest, ...config } = data<Record<string, string>>(await send(`/nodes/host1/${type}/${vmid}/config`));
    return config;
  };
  /** The disk's content as the guest sees it, whatever its format. */
  const diskSum = async (image: string) => {
    const raw = join(root, `disk-${Date.now()}.raw`);
    await run('qemu-img', ['convert', '-U', '-O', 'raw', onHost(image), raw]);
    const sum = createHash('sha256')
      .update(await readFile(raw))
      .digest('hex');
    await rm(raw);
    return sum;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-backups-'));
    const url = await testDatabaseUrl();
    db = new pg.Client({ connectionString: url });
    await db.connect();
    cp = await startOnTestDatabase({ databaseUrl: url, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    await mkdir(onHost('var/lib/vz/template/cache'), { recursive: true });
    await buildBusyboxTemplate(onHost('var/lib/vz/template/cache/busybox.tar.gz'));
    agent = await api.onlineNativeAgent(root, 'host1');
    expect(data(await send('/storage', 'POST', { storage: 'backups', type: 'dir', path: '/srv/backups', content: 'backup' }))).toEqual({
      storage: 'backups',
      type: 'dir',
    });
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    await run('pkill', ['-9', '-f', root]).catch(() => undefined);
    await run('lxc-stop', ['-P', onHost('var/lib/corral/lxc'), '-n', '200', '-k']).catch(() => undefined);
    await agent?.kill();
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it('backs up a running VM in snapshot mode without stopping it, and restores it with the same config and disk', async () => {
    expect(
      await task('/nodes/host1/qemu', 'POST', {
        vmid: 100,
        name: 'vm1',
        memory: 64,
        scsi0: 'local:0.0625',
        net0: 'virtio,bridge=vmbr0',
        description: 'web server, 100% busy',
        cipassword: 'cloud-secret',
      }),
    ).toBe('OK');
    const image = 'var/lib/vz/images/100/vm-100-disk-0.qcow2';
    await run('qemu-io', ['-c', 'write -P 0xab 0 1M', '-c', 'write -P 0x5c 16M 512k', onHost(image)]);
    const before = await diskSum(image);
    expect(await task('/nodes/host1/qemu/100/status/start')).toBe('OK');
    const { pid } = data<{ pid: number }>(await send('/nodes/host1/qemu/100/status/current'));
    const config = await configOf('qemu', 100);
    await db.query('DELETE FROM "events"');

    expect(
      await task('/nodes/host1/vzdump', 'POST', {
        vmid: 100,
        storage: 'backups',
        mode: 'snapshot',
        compress: 'zstd',
        'notes-template': '{{guestname}} on {{node}}',
      }),
    ).toBe('OK');
    expect(data(await send('/nodes/host1/qemu/100/status/current'))).toMatchObject({ status: 'running', pid });
    expect(await events()).toEqual(['backup-start 100', 'backup-end 100']);
    const [archive, ...others] = await backups(100);
    expect(others).toEqual([]);
    expect(archive).toMatchObject({
      content: 'backup',
      format: 'tar.zst',
      vmid: 100,
      subtype: 'qemu',
      notes: 'vm1 on host1',
      volid: expect.stringMatching(/^backups:backup\/vzdump-qemu-100-\d{4}_\d\d_\d\d-\d\d_\d\d_\d\d\.tar\.zst$/),
    });
    // Nothing half written is left beside it: only the archive, its log and its notes.
    expect((await readdir(onHost('srv/backups/dump'))).sort()).toEqual(
      [archive?.volid.slice('backups:backup/'.length), ...logAndNotes(archive?.volid ?? '')].sort(),
    );
    const extracted = data<string>(await send(`/nodes/host1/vzdump/extractconfig?volume=${encodeURIComponent(archive?.volid ?? '')}`));
    expect(extracted).toContain('name: vm1\n');
    // The archive keeps the cloud-init password for the restore; reading the archive masks it.
    expect(extracted).toContain('cipassword: **********\n');
    expect(extracted).not.toContain('cloud-secret');

    expect(await task('/nodes/host1/qemu/100/status/stop')).toBe('OK');
    expect(await task('/nodes/host1/qemu/100', 'DELETE')).toBe('OK');
    expect(await task('/nodes/host1/qemu', 'POST', { vmid: 100, archive: archive?.volid ?? '' })).toBe('OK');
    expect(await configOf('qemu', 100)).toEqual(config);
    expect(await diskSum(image)).toBe(before);

    // Over an existing VM only with force, and then it replaces it.
    const taken = await send('/nodes/host1/qemu', 'POST', { vmid: 100, archive: archive?.volid ?? '' });
    expect(taken.status).toBe(409);
    await run('qemu-io', ['-c', 'write -P 0x00 0 1M', onHost(image)]);
    expect(await task('/nodes/host1/qemu', 'POST', { vmid: 100, archive: archive?.volid ?? '', force: 1 })).toBe('OK');
    expect(await diskSum(image)).toBe(before);
  });

  it('backs up a container and restores it as PVE does (ostemplate with restore=1), with the same files', async () => {
    expect(
      await task('/nodes/host1/lxc', 'POST', {
        vmid: 200,
        hostname: 'ct1',
        ostemplate: 'local:vztmpl/busybox.tar.gz',
        rootfs: 'local:0.5',
        memory: 64,
      }),
    ).toBe('OK');
    const rootfs = onHost('var/lib/vz/images/200/subvol-200-disk-0');
    await run('sh', [
      '-c',
      `echo 'kept across backups' > '${rootfs}/etc/marker' && chown 1234:5678 '${rootfs}/etc/marker' && chmod 640 '${rootfs}/etc/marker'`,
    ]);
    const tree = await treeOf(rootfs);
    const config = await configOf('lxc', 200);

    expect(await task('/nodes/host1/vzdump', 'POST', { vmid: 200, storage: 'backups', mode: 'stop', compress: 'gzip' })).toBe('OK');
    const [archive] = await backups(200);
    expect(archive).toMatchObject({ format: 'tar.gz', vmid: 200, subtype: 'lxc' });

    expect(await task('/nodes/host1/lxc/200', 'DELETE')).toBe('OK');
    expect(await task('/nodes/host1/lxc', 'POST', { vmid: 200, ostemplate: archive?.volid ?? '', restore: 1 })).toBe('OK');
    expect(await configOf('lxc', 200)).toEqual(config);
    expect(await treeOf(rootfs)).toEqual(tree);
    expect(await task('/nodes/host1/lxc/200/status/start')).toBe('OK');
    expect(await task('/nodes/host1/lxc/200/status/stop')).toBe('OK');
  });

  it('refuses what it cannot do, with the parameter named and nothing written', async () => {
    const refused = async (form: Form) => {
      const res = await send('/nodes/host1/vzdump', 'POST', form);
      const errors = res.json<{ errors?: { param: string; message: string }[] }>().errors ?? [];
      return { status: res.status, errors: Object.fromEntries(errors.map((error) => [error.param, error.message])) };
    };
    expect(await refused({ storage: 'backups' })).toEqual({
      status: 400,
      errors: { vmid: expect.stringContaining('vmid, all=1 or pool') },
    });
    expect(await refused({ vmid: 100, all: 1, storage: 'backups' })).toEqual({
      status: 400,
      errors: { all: expect.stringContaining('exclude each other') },
    });
    expect(await refused({ vmid: 100, storage: 'local', compress: 'lzo' })).toEqual({
      status: 400,
      errors: { compress: expect.stringContaining('LZO') },
    });
    expect((await send('/nodes/host1/vzdump', 'POST', { vmid: 999, storage: 'backups' })).status).toBe(404);
    expect((await send('/nodes/host1/vzdump', 'POST', { vmid: 100, storage: 'nowhere' })).status).toBe(404);
    expect(
      (await send('/nodes/host1/qemu', 'POST', { vmid: 300, archive: 'backups:backup/vzdump-lxc-200-2025_01_31-02_00_00.tar.gz' })).status,
    ).toBe(400);
    expect(
      (
        await send('/nodes/host1/qemu', 'POST', {
          vmid: 300,
          archive: 'backups:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst',
          memory: 128,
        })
      ).status,
    ).toBe(400);
    expect(data<unknown[]>(await send('/cluster/resources?type=vm')).length).toBe(2);
  });

  it('serves a proxmoxer script (Debian python3-proxmoxer) that backs up a VM, restores it, and defines a backup job', async () => {
    const { stdout } = await run('/usr/bin/python3', [resolve('test/compat/proxmoxer_backups.py')], {
      env: {
        CORRAL_HOST: '127.0.0.1',
        CORRAL_PORT: String(cp.port),
        CORRAL_PASSWORD: ROOT_PASSWORD,
        CORRAL_NODE: 'host1',
        CORRAL_STORAGE: 'backups',
      },
    }).catch((error: { stderr?: string }) => {
      throw new Error(`the proxmoxer script failed:\n${error.stderr ?? String(error)}`);
    });
    expect(JSON.parse(stdout)).toEqual({
      create: 'OK',
      backup: 'OK',
      archives: [['tar.zst', 'qemu', 150]],
      delete: 'OK',
      restore: 'OK',
      same_config: true,
      job: null,
      job_read: { id: 'nightly', schedule: 'sat 02:00', vmid: '150', storage: 'backups', enabled: 1, type: 'vzdump' },
      job_next_run: true,
      jobs: ['nightly'],
      job_delete: null,
      destroy: 'OK',
    });
  });

  it('prunes by retention after each backup: keep-last=1 leaves the newest', async () => {
    const before = await backups(100);
    // Archive names have a one-second resolution: the next backup must be in a later second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await task('/nodes/host1/vzdump', 'POST', { vmid: 100, storage: 'backups', mode: 'stop', 'prune-backups': 'keep-last=1' })).toBe(
      'OK',
    );
    const after = await backups(100);
    expect(after).toHaveLength(1);
    expect(before.map((entry) => entry.volid)).not.toContain(after[0]?.volid);
    expect(after[0]).toMatchObject({ format: 'tar' });
  });
});

/** PVE's sidecars of an archive: `<name>.log` without the archive's extensions, and `<archive>.notes`. */
function logAndNotes(volid: string): string[] {
  const file = volid.slice(volid.indexOf('backup/') + 'backup/'.length);
  return [file.replace(/\.tar(?:\.gz|\.zst)?$/, '.log'), `${file}.notes`];
}

/** Every path below `dir` with its type, mode, owner and, for files, content hash. */
async function treeOf(dir: string): Promise<string[]> {
  const { stdout } = await run('find', [dir, '-printf', '%P %y %m %U:%G %s\\n'], { maxBuffer: 64 * 1024 * 1024 });
  const lines = stdout.split('\n').filter(Boolean).sort();
  const { stdout: sums } = await run('sh', ['-c', `cd '${dir}' && find . -type f -exec sha256sum {} + | sort`], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...lines, ...sums.split('\n').filter(Boolean)];
}
