import { buildBusyboxTemplate, waitFor, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi, guestEvents, type Form } from '../support/guest-api.js';
import { openVncConsole } from '../support/vnc-console.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'guests-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;

// Real VMs (QEMU, TCG) and real containers (LXC) through a real agent on the
// native driver, driven through the API as a PVE client drives them.
describe('guests on the native driver', () => {
  let cp: ControlPlaneProcess;
  let db: pg.Client;
  let agent: AgentProcess | undefined;
  let root: string;

  let api: ReturnType<typeof guestApi>;
  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);
  const task = (path: string, method?: string, form?: Form) => api.task('host1', path, method, form);
  const current = async (type: 'qemu' | 'lxc', vmid: number) =>
    data<Record<string, unknown>>(await send(`/nodes/host1/${type}/${vmid}/status/current`));
  const events = () => guestEvents(db);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-guests-'));
    const url = await testDatabaseUrl();
    db = new pg.Client({ connectionString: url });
    await db.connect();
    cp = await startOnTestDatabase({ databaseUrl: url, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    await mkdir(join(root, 'host1', 'var/lib/vz/template/cache'), { recursive: true });
    await buildBusyboxTemplate(join(root, 'host1', 'var/lib/vz/template/cache/busybox.tar.gz'));
    agent = await api.onlineNativeAgent(root, 'host1');
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    // Guests outlive their agent (as in PVE): whatever a failed test left running is killed here.
    await run('pkill', ['-9', '-f', root]).catch(() => undefined);
    for (const name of ['200', '201'])
      await run('lxc-stop', ['-P', join(root, 'host1/var/lib/corral/lxc'), '-n', name, '-k']).catch(() => undefined);
    await agent?.kill();
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it('creates, starts, monitors, suspends, resumes, shuts down, clones, templates and destroys a real QEMU VM', async () => {
    expect(
      await task('/nodes/host1/qemu', 'POST', { vmid: 100, name: 'vm1', memory: 64, scsi0: 'local:0.0625', net0: 'virtio,bridge=vmbr0' }),
    ).toBe('OK');
    const image = join(root, 'host1/var/lib/vz/images/100/vm-100-disk-0.qcow2');
    const { stdout } = await run('qemu-img', ['info', '--output=json', image]);
    expect(JSON.parse(stdout)).toMatchObject({ format: 'qcow2', 'virtual-size': 64 * 1024 * 1024 });

    expect(await task('/nodes/host1/qemu/100/status/start')).toBe('OK');
    expect(await current('qemu', 100)).toMatchObject({ status: 'running', qmpstatus: 'running', pid: expect.any(Number), name: 'vm1' });
    expect((await send('/nodes/host1/qemu/100/status/start', 'POST')).status).toBe(409);

    expect(await task('/nodes/host1/qemu/100/status/suspend')).toBe('OK');
    expect(await current('qemu', 100)).toMatchObject({ status: 'running', qmpstatus: 'paused' });
    expect(await task('/nodes/host1/qemu/100/status/resume')).toBe('OK');
    expect(await current('qemu', 100)).toMatchObject({ qmpstatus: 'running' });
    expect(data<string>(await send('/nodes/host1/qemu/100/monitor', 'POST', { command: 'info status' }))).toMatch(/VM status: running/);

    // No OS inside ignores the power button: the shutdown stops it when its timeout passes.
    expect(await task('/nodes/host1/qemu/100/status/shutdown', 'POST', { timeout: 1, forceStop: 1 })).toBe('OK');
    expect(await current('qemu', 100)).toMatchObject({ status: 'stopped' });

    expect(await task('/nodes/host1/qemu/100/clone', 'POST', { newid: 101, name: 'vm2' })).toBe('OK');
    const { stdout: copied } = await run('qemu-img', [
      'info',
      '--output=json',
      join(root, 'host1/var/lib/vz/images/101/vm-101-disk-0.qcow2'),
    ]);
    expect(JSON.parse(copied)).toMatchObject({ format: 'qcow2', 'virtual-size': 64 * 1024 * 1024 });
    expect(await task('/nodes/host1/qemu/101/status/start')).toBe('OK');
    expect(await current('qemu', 101)).toMatchObject({ status: 'running', name: 'vm2' });
    expect(await task('/nodes/host1/qemu/101', 'DELETE', { force: 1 })).toBe('OK');
    await expect(stat(join(root, 'host1/var/lib/vz/images/101/vm-101-disk-0.qcow2'))).rejects.toThrow(/ENOENT/);

    expect(await task('/nodes/host1/qemu/100/template')).toBe('OK');
    expect((await send('/nodes/host1/qemu/100/status/start', 'POST')).status).toBe(409);
    // A linked clone of the template: its disk an overlay of the template's image.
    expect(await task('/nodes/host1/qemu/100/clone', 'POST', { newid: 102, name: 'vm3' })).toBe('OK');
    const { stdout: overlay } = await run('qemu-img', [
      'info',
      '--output=json',
      join(root, 'host1/var/lib/vz/images/102/vm-102-disk-0.qcow2'),
    ]);
    expect(JSON.parse(overlay)).toMatchObject({ 'backing-filename': expect.stringContaining('images/100/vm-100-disk-0.qcow2') });
    expect(await task('/nodes/host1/qemu/102/status/start')).toBe('OK');
    expect(await task('/nodes/host1/qemu/102', 'DELETE', { force: 1 })).toBe('OK');
    expect(await task('/nodes/host1/qemu/100', 'DELETE')).toBe('OK');
    // The VM's folder goes with its last volume.
    await expect(stat(join(root, 'host1/var/lib/vz/images/100'))).rejects.toThrow(/ENOENT/);
    expect(await events()).toEqual([
      'vm-create 100',
      'vm-start 100',
      'vm-stop 100',
      'vm-create 101',
      'vm-start 101',
      'vm-stop 101',
      'vm-delete 101',
      'vm-create 102',
      'vm-start 102',
      'vm-stop 102',
      'vm-delete 102',
      'vm-delete 100',
    ]);
  });

  it('creates, starts, stops and destroys a real LXC container from a template', async () => {
    await db.query('DELETE FROM "events"');
    expect(
      await task('/nodes/host1/lxc', 'POST', {
        vmid: 200,
        hostname: 'ct1',
        ostemplate: 'local:vztmpl/busybox.tar.gz',
        rootfs: 'local:0.5',
        memory: 64,
        net0: 'name=eth0,bridge=vmbr0,ip=dhcp',
      }),
    ).toBe('OK');
    expect(await task('/nodes/host1/lxc/200/status/start')).toBe('OK');
    expect(await current('lxc', 200)).toMatchObject({ status: 'running', type: 'lxc', name: 'ct1', pid: expect.any(Number) });
    const resources = data<Record<string, unknown>[]>(await send('/cluster/resources?type=vm'));
    expect(resources).toContainEqual(expect.objectContaining({ id: 'lxc/200', type: 'lxc', status: 'running', node: 'host1' }));

    expect(await task('/nodes/host1/lxc/200/status', 'POST', { command: 'stop' })).toBe('OK');
    expect(await current('lxc', 200)).toMatchObject({ status: 'stopped' });
    expect(await task('/nodes/host1/lxc/200', 'DELETE')).toBe('OK');
    await expect(stat(join(root, 'host1/var/lib/vz/images/200'))).rejects.toThrow(/ENOENT/);
    expect(await events()).toEqual(['vm-create 200', 'ct-start 200', 'ct-stop 200', 'vm-delete 200']);
  });

  it('serves a proxmoxer script (Debian python3-proxmoxer) that creates, starts, waits on, stops, clones and deletes a VM and a container', async () => {
    const { stdout } = await run('/usr/bin/python3', [resolve('test/compat/proxmoxer_guests.py')], {
      env: {
        CORRAL_HOST: '127.0.0.1',
        CORRAL_PORT: String(cp.port),
        CORRAL_PASSWORD: ROOT_PASSWORD,
        CORRAL_NODE: 'host1',
        CORRAL_OSTEMPLATE: 'local:vztmpl/busybox.tar.gz',
      },
    }).catch((error: { stderr?: string }) => {
      throw new Error(`the proxmoxer script failed:\n${error.stderr ?? String(error)}`);
    });
    expect(JSON.parse(stdout)).toEqual({
      vm_create: 'OK',
      vm_config: { net0: 'virtio', scsi0: expect.stringMatching(/^local:\d+\/vm-\d+-disk-0\.qcow2$/) },
      vm_start: 'OK',
      vm_running: 'running',
      vm_resource: { id: expect.stringMatching(/^qemu\/\d+$/), name: 'compat-vm', type: 'qemu' },
      vm_stop: 'OK',
      vm_clone: 'OK',
      vm_clone_name: 'compat-vm2',
      vm_delete: ['OK', 'OK'],
      ct_create: 'OK',
      ct_start: 'OK',
      ct_running: 'running',
      ct_stop: 'OK',
      ct_clone: 'OK',
      ct_clone_hostname: 'compat-ct2',
      ct_delete: ['OK', 'OK'],
    });
  });

  it("opens a real VM's VNC console: vncproxy, then QEMU's RFB version through vncwebsocket, trusting the certificate vncproxy gave", async () => {
    expect(await task('/nodes/host1/qemu', 'POST', { vmid: 120, name: 'vnc1', memory: 64 })).toBe('OK');
    expect(await task('/nodes/host1/qemu/120/status/start')).toBe('OK');
    const vnc = data<{ user: string; ticket: string; cert: string; port: number; upid: string }>(
      await send('/nodes/host1/qemu/120/vncproxy', 'POST', { websocket: 1 }),
    );
    expect(vnc).toMatchObject({ user: 'root@pam', upid: expect.stringContaining(':vncproxy:120:root@pam:') });

    const { socket, version } = await openVncConsole(cp.port, '/nodes/host1/qemu/120', vnc, api.asRoot);
    expect(version).toBe('RFB 003.008\n');

    // The vncproxy task lasts as long as the console.
    socket.close(1000);
    let status: { status: string; exitstatus?: string } = { status: 'running' };
    await waitFor(
      async () => {
        status = data(await send(`/nodes/host1/tasks/${encodeURIComponent(vnc.upid)}/status`));
        return status.status === 'stopped';
      },
      { timeoutMs: PATIENCE_MS, what: 'the vncproxy task to end' },
    );
    expect(status.exitstatus).toBe('OK');
    expect(await task('/nodes/host1/qemu/120/status/stop')).toBe('OK');
    expect(await task('/nodes/host1/qemu/120', 'DELETE')).toBe('OK');
  });
});
