import { buildBusyboxTemplate, processesUnder, waitFor, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi, type Form } from '../support/guest-api.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'migrate-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 90_000;
const NODES = ['host1', 'host2'] as const;
const IMAGE = 'var/lib/vz/images/100/vm-100-disk-0.qcow2';
const CT_ROOT = 'var/lib/vz/images/200/subvol-200-disk-0';

// A running VM (real QEMU, TCG) moved live, and a container (real LXC) in restart mode, between two
// real agents on the native driver, each with a host root of its own, so that their volumes are
// copied from one to the other as between two hosts; driven through the API as PVE clients drive
// `qm migrate --online` and `pct migrate --restart`.
describe('migration between two agents on the native driver', () => {
  let cp: ControlPlaneProcess;
  let db: pg.Client;
  const agents: AgentProcess[] = [];
  let root: string;

  let api: ReturnType<typeof guestApi>;
  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);
  const task = (node: string, path: string, method?: string, form?: Form) => api.task(node, path, method, form);
  const hostFile = (node: string, path: string) => join(root, node, path);
  /** qemu-io's check of a pattern in the VM's image on `node` (`-U`: also while a QEMU has it open). */
  const holds = async (node: string, pattern: string, offset: string, image = IMAGE) =>
    !(await run('qemu-io', ['-r', '-U', '-f', 'qcow2', '-c', `read -P ${pattern} ${offset} 1M`, hostFile(node, image)])).stdout.includes(
      'verification failed',
    );

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-migrate-'));
    const url = await testDatabaseUrl();
    db = new pg.Client({ connectionString: url });
    await db.connect();
    cp = await startOnTestDatabase({ databaseUrl: url, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    for (const node of NODES) agents.push(await api.nativeAgent(root, node));
    await waitFor(
      async () => data<{ status: string }[]>(await send('/nodes')).filter((node) => node.status === 'online').length === NODES.length,
      { timeoutMs: PATIENCE_MS, what: 'both nodes online' },
    );
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    // Guests outlive their agents (as in PVE): the QEMUs and containers a failed test left under this test's roots are stopped here.
    for (const agent of agents) await agent.kill();
    for (const node of NODES) await run('lxc-stop', ['-P', hostFile(node, 'var/lib/corral/lxc'), '-n', '200', '-k']).catch(() => undefined);
    for (const pid of await processesUnder(root)) process.kill(pid, 'SIGKILL');
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it('moves a running VM from host1 to host2 with its disk, without a stop or a start, and stops and destroys it there', async () => {
    expect(
      await task('host1', '/nodes/host1/qemu', 'POST', {
        vmid: 100,
        name: 'mover',
        memory: 64,
        scsi0: 'local:0.0625',
        net0: 'virtio,bridge=vmbr0',
      }),
    ).toBe('OK');
    await run('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0x5a 0 1M', hostFile('host1', IMAGE)]);
    expect(await task('host1', '/nodes/host1/qemu/100/status/start')).toBe('OK');
    const before = data<{ pid: number }>(await send('/nodes/host1/qemu/100/status/current'));

    expect((await send('/nodes/host1/qemu/100/migrate', 'POST', { target: 'host2' })).status).toBe(409);
    expect(await task('host1', '/nodes/host1/qemu/100/migrate', 'POST', { target: 'host2', online: 1, 'with-local-disks': 1 })).toBe('OK');

    expect(data<Record<string, unknown>>(await send('/nodes/host2/qemu/100/status/current'))).toMatchObject({
      status: 'running',
      qmpstatus: 'running',
      name: 'mover',
      pid: expect.any(Number),
    });
    expect(data<{ pid: number }>(await send('/nodes/host2/qemu/100/status/current')).pid).not.toBe(before.pid);
    expect(data<string>(await send('/nodes/host2/qemu/100/monitor', 'POST', { command: 'info status' }))).toMatch(/VM status: running/);
    expect((await send('/nodes/host1/qemu/100/status/current')).status).toBe(404);
    expect(data<Record<string, unknown>[]>(await send('/cluster/resources?type=vm'))).toContainEqual(
      expect.objectContaining({ vmid: 100, node: 'host2', status: 'running' }),
    );
    await expect(stat(hostFile('host1', IMAGE))).rejects.toThrow(/ENOENT/);
    expect(await readdir(hostFile('host1', 'run/corral/qemu'))).toEqual([]);
    expect(await holds('host2', '0x5a', '0')).toBe(true);

    expect(await task('host2', '/nodes/host2/qemu/100/status/stop')).toBe('OK');
    expect(data<Record<string, unknown>>(await send('/nodes/host2/qemu/100/status/current'))).toMatchObject({ status: 'stopped' });
    expect(await holds('host2', '0x5a', '0')).toBe(true);
    expect(await task('host2', '/nodes/host2/qemu/100', 'DELETE')).toBe('OK');
    await expect(stat(hostFile('host2', IMAGE))).rejects.toThrow(/ENOENT/);
    const events = (await db.query('SELECT "event", "node" FROM "events" WHERE "vmid" = 100 ORDER BY "seq"')).rows as {
      event: string;
      node: string;
    }[];
    expect(events.map((row) => `${row.event}@${row.node}`)).toEqual([
      'vm-create@host1',
      'vm-start@host1',
      'vm-stop@host2',
      'vm-delete@host2',
    ]);
  });

  it('clones a VM of host1 to host2 (made on host1, then moved offline) with the content of its disk', async () => {
    expect(await task('host1', '/nodes/host1/qemu', 'POST', { vmid: 110, name: 'original', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
    await run('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0x3c 0 1M', hostFile('host1', 'var/lib/vz/images/110/vm-110-disk-0.qcow2')]);
    expect(await task('host1', '/nodes/host1/qemu/110/clone', 'POST', { newid: 111, name: 'copy', target: 'host2' })).toBe('OK');
    expect(data<Record<string, unknown>>(await send('/nodes/host2/qemu/111/status/current'))).toMatchObject({
      status: 'stopped',
      name: 'copy',
    });
    expect(await holds('host2', '0x3c', '0', 'var/lib/vz/images/111/vm-111-disk-0.qcow2')).toBe(true);
    await expect(stat(hostFile('host1', 'var/lib/vz/images/111/vm-111-disk-0.qcow2'))).rejects.toThrow(/ENOENT/);
    expect(await task('host2', '/nodes/host2/qemu/111', 'DELETE')).toBe('OK');
    expect(await task('host1', '/nodes/host1/qemu/110', 'DELETE')).toBe('OK');
  });

  it('moves a running container from host1 to host2 in restart mode (shut down, moved with its files, started there), and destroys it there', async () => {
    await buildBusyboxTemplate(hostFile('host1', 'var/lib/vz/template/cache/busybox.tar.gz'));
    expect(
      await task('host1', '/nodes/host1/lxc', 'POST', {
        vmid: 200,
        hostname: 'ct1',
        ostemplate: 'local:vztmpl/busybox.tar.gz',
        rootfs: 'local:0.5',
        memory: 64,
      }),
    ).toBe('OK');
    await writeFile(hostFile('host1', `${CT_ROOT}/root/note`), 'moved with its container\n', { mode: 0o600 });
    expect(await task('host1', '/nodes/host1/lxc/200/status/start')).toBe('OK');

    expect((await send('/nodes/host1/lxc/200/migrate', 'POST', { target: 'host2' })).status).toBe(409);
    expect(await task('host1', '/nodes/host1/lxc/200/migrate', 'POST', { target: 'host2', restart: 1, timeout: 5 })).toBe('OK');

    expect(data<Record<string, unknown>>(await send('/nodes/host2/lxc/200/status/current'))).toMatchObject({
      status: 'running',
      name: 'ct1',
    });
    expect((await send('/nodes/host1/lxc/200/status/current')).status).toBe(404);
    expect(await readFile(hostFile('host2', `${CT_ROOT}/root/note`), 'utf8')).toBe('moved with its container\n');
    expect((await stat(hostFile('host2', `${CT_ROOT}/root/note`))).mode & 0o777).toBe(0o600);
    await expect(stat(hostFile('host1', CT_ROOT))).rejects.toThrow(/ENOENT/);
    await expect(stat(hostFile('host1', 'var/lib/corral/lxc/200'))).rejects.toThrow(/ENOENT/);

    expect(await task('host2', '/nodes/host2/lxc/200/status/stop')).toBe('OK');
    expect(await task('host2', '/nodes/host2/lxc/200', 'DELETE')).toBe('OK');
    await expect(stat(hostFile('host2', CT_ROOT))).rejects.toThrow(/ENOENT/);
    const events = (await db.query('SELECT "event", "node" FROM "events" WHERE "vmid" = 200 ORDER BY "seq"')).rows as {
      event: string;
      node: string;
    }[];
    expect(events.map((row) => `${row.event}@${row.node}`)).toEqual([
      'vm-create@host1',
      'ct-start@host1',
      'ct-stop@host1',
      'ct-start@host2',
      'ct-stop@host2',
      'vm-delete@host2',
    ]);
  });
});
