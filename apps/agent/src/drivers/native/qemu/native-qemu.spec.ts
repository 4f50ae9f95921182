import { once } from 'node:events';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@corral/testing';
import type { GuestSpec, GuestVolume } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import { NativeQemu } from './native-qemu.js';

/*
 * Real QEMU under TCG in a temporary host root: one VM's life, test after test in order (each
 * builds on the state the previous one left), then its clones. afterAll kills every QEMU whose
 * command line names the temporary root, whatever failed on the way.
 */

const BRIDGE = 'corralnone0';
const MiB = 1024 * 1024;

function vm(vmid: number, volume: Partial<GuestVolume> = {}, overrides: Partial<GuestSpec> = {}): GuestSpec {
  return {
    type: 'qemu',
    vmid,
    name: `test${vmid}`,
    memoryMiB: 64,
    cores: 1,
    sockets: 1,
    cpu: 'x86-64-v2-AES',
    template: false,
    nics: [{ key: 'net0', mac: 'BC:24:11:3A:5F:01', bridge: BRIDGE, model: 'virtio' }],
    volumes: [
      {
        key: 'scsi0',
        volid: `local:${vmid}/vm-${vmid}-disk-0.qcow2`,
        path: `/var/lib/vz/images/${vmid}/vm-${vmid}-disk-0.qcow2`,
        format: 'qcow2',
        size: 64 * MiB,
        ...volume,
      },
    ],
    config: { smbios1: 'uuid=7d1c1f0e-2f3a-4b5c-8d9e-0a1b2c3d4e5f', boot: 'order=scsi0;net0' },
    ...overrides,
  };
}

describe('NativeQemu with real QEMU (TCG)', () => {
  let dir: string;
  let host: Host;
  let qemu: NativeQemu;
  let log: string[];
  const controller = new AbortController();
  const context: CommandContext = { signal: controller.signal, log: (line) => log.push(line) };
  const path = (guest: GuestSpec) => join(dir, guest.volumes[0]?.path ?? '');
  const info = async (file: string) =>
    JSON.parse((await runChecked('qemu-img', ['info', '--output=json', file], { signal: controller.signal })).stdout) as Record<
      string,
      unknown
    >;
  const listed = async (vmid: number) => (await qemu.list(controller.signal)).find((guest) => guest.vmid === vmid);
  const web = vm(100);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qemu-'));
    host = await openHost(dir);
    qemu = new NativeQemu(host, undefined, { accelerator: 'tcg' });
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(() => removeHostRoot(dir));

  it('creates a 64 MiB qcow2 volume with qemu-img and refuses to create it again', async () => {
    await qemu.create({ guest: web, allocate: ['scsi0'] }, context);
    expect(await info(path(web))).toMatchObject({ format: 'qcow2', 'virtual-size': 64 * MiB });
    expect(log.some((line) => line.startsWith('Formatting '))).toBe(true);
    await expect(qemu.create({ guest: web, allocate: ['scsi0'] }, context)).rejects.toThrow(
      'VM 100: volume scsi0 already exists (/var/lib/vz/images/100/vm-100-disk-0.qcow2)',
    );
  });

  it('makes all of the volumes or none: one that fails removes those made before it', async () => {
    const guest = vm(103);
    const broken = {
      key: 'scsi1',
      volid: 'local:103/vm-103-disk-1.qcow2',
      path: '/var/lib/vz/images/103/vm-103-disk-1.qcow2',
      format: 'qcow2' as const,
      size: MiB,
      base: '/var/lib/vz/images/999/base-999-disk-0.qcow2',
    };
    const create = qemu.create({ guest: { ...guest, volumes: [...guest.volumes, broken] }, allocate: ['scsi0', 'scsi1'] }, context);
    await expect(create).rejects.toThrow(/^VM 103: could not make volume scsi1: qemu-img failed \(exit code 1\): .*base-999-disk-0\.qcow2/);
    await expect(stat(path(guest))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('starts the VM under TCG, logging the unplugged card and the command line, and list() shows it running', async () => {
    await qemu.start(web, context);
    expect(log).toContain(`net0: bridge '${BRIDGE}' does not exist on this host; the card is not connected`);
    const commandLine = log.find((line) => line.startsWith('qemu-system-x86_64 '));
    expect(commandLine).toContain('-accel tcg');
    const guest = await listed(100);
    expect(guest).toMatchObject({ vmid: 100, type: 'qemu', status: 'running' });
    expect(guest?.pid).toBeGreaterThan(1);
    expect(guest?.mem).toBeGreaterThan(0);
    expect(guest?.cpu).toBeGreaterThanOrEqual(0);
    expect(guest?.cpu).toBeLessThanOrEqual(1);
    // An unplugged card has no tap to count; the disk's traffic is what QEMU made the host's disks do.
    expect(guest).toMatchObject({ netin: 0, netout: 0, diskread: expect.any(Number), diskwrite: expect.any(Number) });
  });

  it('refuses to start a running VM', async () => {
    await expect(qemu.start(web, context)).rejects.toThrow('VM 100 is already running');
  });

  it("runs a human-monitor command and answers with QEMU's output", async () => {
    expect(await qemu.monitor(100, 'info status', context)).toContain('running');
  });

  it('suspends and resumes the VM, and list() shows it paused in between', async () => {
    await qemu.suspend(100, context);
    expect(await listed(100)).toMatchObject({ status: 'paused' });
    expect(await qemu.monitor(100, 'info status', context)).toContain('paused');
    await qemu.resume(100, context);
    expect(await listed(100)).toMatchObject({ status: 'running' });
  });

  it('lists the state QMP last gave while another client holds the monitor', async () => {
    await qemu.suspend(100, context);
    const holder = connect(join(dir, 'run/corral/qemu/100.qmp'));
    await once(holder, 'data'); // the greeting: QEMU serves this client now, and no other
    try {
      expect(await listed(100)).toMatchObject({ status: 'paused' });
    } finally {
      holder.destroy();
    }
    await qemu.resume(100, context);
  });

  it('resets the VM, which keeps running', async () => {
    const pid = (await listed(100))?.pid;
    await qemu.reset(100, context);
    expect(await listed(100)).toMatchObject({ status: 'running', pid });
  });

  it('stops the VM after the shutdown timeout when forced, as a guest without an OS ignores the power button', async () => {
    const pid = (await listed(100))?.pid;
    await qemu.shutdown(100, 1, true, context);
    expect(log).toContain('VM 100 did not shut down within 1 s: stopping it');
    expect(await listed(100)).toBeUndefined();
    expect(await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).toBe('');
  });

  it('fails an unforced shutdown that times out and leaves the VM running', async () => {
    await qemu.start(web, context);
    await expect(qemu.shutdown(100, 1, false, context)).rejects.toThrow('VM 100 is still running after 1 s (shutdown timed out)');
    expect(await listed(100)).toMatchObject({ status: 'running' });
  });

  it('reboots the VM: a new QEMU after the forced shutdown', async () => {
    const before = (await listed(100))?.pid;
    await qemu.reboot(web, 1, context);
    const after = await listed(100);
    expect(after).toMatchObject({ status: 'running' });
    expect(after?.pid).not.toBe(before);
  });

  it('stops the VM and removes its runtime files but the log; stopping it again is fine', async () => {
    await qemu.stop(100, context);
    expect(await listed(100)).toBeUndefined();
    expect(await readdir(join(dir, 'run/corral/qemu'))).toEqual(['100.log']);
    await qemu.stop(100, context);
    expect(log).toContain('VM 100 is not running');
  });

  it('forgets a VM whose QEMU was killed behind its back, removing the files it left', async () => {
    await qemu.start(web, context);
    const pid = (await listed(100))?.pid ?? 0;
    process.kill(pid, 'SIGKILL');
    await waitFor(async () => (await listed(100)) === undefined, { timeoutMs: 20_000, what: 'list() to drop the killed VM' });
    expect(await readdir(join(dir, 'run/corral/qemu'))).toEqual(['100.log']);
  });

  it('fails to start a VM whose disk is missing, saying why, and leaves nothing running', async () => {
    const missing = vm(104);
    await expect(qemu.start(missing, context)).rejects.toThrow(
      /^VM 104: could not start: qemu-system-x86_64 failed \(exit code 1\): .*vm-104-disk-0\.qcow2/,
    );
    expect(await listed(104)).toBeUndefined();
    expect(await readdir(join(dir, 'run/corral/qemu'))).not.toContain('104.pid');
  });

  it('clones the stopped VM in full into a standalone image', async () => {
    const copy = vm(101);
    await qemu.clone({ source: web, target: copy }, context);
    const image = await info(path(copy));
    expect(image).toMatchObject({ format: 'qcow2', 'virtual-size': 64 * MiB });
    expect(image['backing-filename']).toBeUndefined();
  });

  it('makes the VM a template: read-only images that do not start', async () => {
    await qemu.template(web, context);
    expect((await stat(path(web))).mode & 0o777).toBe(0o444);
    await expect(qemu.start({ ...web, template: true }, context)).rejects.toThrow('VM 100 is a template');
  });

  it('clones the template linked, as a qcow2 overlay of its image that starts', async () => {
    const linked = vm(102, { base: web.volumes[0]?.path });
    await qemu.clone({ source: { ...web, template: true }, target: linked }, context);
    expect(await info(path(linked))).toMatchObject({ format: 'qcow2', 'backing-filename': path(web), 'backing-filename-format': 'qcow2' });
    await qemu.start(linked, context);
    expect(await listed(102)).toMatchObject({ status: 'running' });
  });

  it('refuses to clone or destroy a running VM', async () => {
    await expect(qemu.clone({ source: vm(102), target: vm(105) }, context)).rejects.toThrow(
      'VM 102 is running: clone it once it is stopped',
    );
    await expect(qemu.destroy(vm(102), context)).rejects.toThrow('VM 102 is running: stop it before destroying it');
    await qemu.stop(102, context);
  });

  it('destroys the VMs: their images and runtime files go, the template after its linked clone', async () => {
    for (const vmid of [102, 101, 100, 104]) await qemu.destroy(vm(vmid), context);
    for (const vmid of [100, 101, 102]) await expect(stat(path(vm(vmid)))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(join(dir, 'run/corral/qemu'))).toEqual([]);
    expect(await qemu.list(controller.signal)).toEqual([]);
  });
});
