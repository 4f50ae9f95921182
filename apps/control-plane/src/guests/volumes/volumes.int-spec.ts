import type { GuestRuntime, RequestFrame } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { StorageModule } from '../../storage/storage.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';

/** A fake agent that records requests, runs guests as the real agent reports them, and fails the commands of `failing`. */
function answers(agent: () => FakeAgent, asked: RequestFrame[], failing: Set<string>) {
  const running = new Map<number, GuestRuntime>();
  return (request: RequestFrame): FakeAnswer => {
    asked.push(request);
    if (failing.has(request.command)) return { failure: 'failed', message: `${request.command} failed on purpose` };
    if (request.command === 'storage.activate') return { result: { active: true } };
    const params = request.params as { guest?: { vmid: number; type: 'qemu' | 'lxc' } };
    if (request.command === 'guest.start' && params.guest !== undefined) {
      running.set(params.guest.vmid, {
        vmid: params.guest.vmid,
        type: params.guest.type,
        status: 'running',
        pid: 4242,
        uptime: 1,
        cpu: 0,
        mem: 1,
      });
      agent().send({ type: 'report', payload: { kind: 'runtime', guests: [...running.values()] } });
    }
    return { result: null };
  };
}

describe('volumes of existing guests through the API', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];
  const failing = new Set<string>();

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, StorageModule] });
    const credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, { answer: answers(() => agent, asked, failing) });
    for (const form of [
      { storage: 'fast', type: 'dir', path: '/srv/fast', content: 'images,rootdir' },
      { storage: 'isos', type: 'dir', path: '/srv/isos', content: 'iso' },
    ]) {
      dataOf(await call(t, 'POST', '/storage', { form }));
    }
    expect(
      await finished(
        t,
        'pve1',
        dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 100, scsi0: 'local:1', ide2: 'none,media=cdrom' } })),
      ),
    ).toBe('OK');
    expect(
      await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 101, scsi0: 'local:1' } }))),
    ).toBe('OK');
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });
  beforeEach(() => {
    asked.length = 0;
    failing.clear();
  });

  const config = async (vmid: number, type = 'qemu') =>
    dataOf<Record<string, string>>(await call(t, 'GET', `/nodes/pve1/${type}/${vmid}/config`));
  const put = (form: Form, vmid = 100) => call(t, 'PUT', `/nodes/pve1/qemu/${vmid}/config`, { form });
  const commands = () => asked.map((request) => request.command).filter((command) => command.startsWith('guest.volume.'));
  const task = async (method: 'PUT' | 'POST', path: string, form: Form) =>
    finished(t, 'pve1', dataOf<string>(await call(t, method, `/nodes/pve1/${path}`, { form })));

  it('adds a disk: a new volume allocated by the agent, named as create names them, with its size in the config', async () => {
    expect(dataOf(await put({ scsi1: 'local:4,iothread=1', virtio2: 'local:1,format=raw' }))).toBeNull();
    const changed = await config(100);
    expect(changed['scsi1']).toBe('local:100/vm-100-disk-1.qcow2,iothread=1,size=4G');
    expect(changed['virtio2']).toBe('local:100/vm-100-disk-2.raw,size=1G');
    const [request] = asked.filter((frame) => frame.command === 'guest.volume.allocate');
    expect(request?.params).toEqual({
      type: 'qemu',
      vmid: 100,
      volumes: [
        {
          key: 'scsi1',
          volid: 'local:100/vm-100-disk-1.qcow2',
          path: '/var/lib/vz/images/100/vm-100-disk-1.qcow2',
          format: 'qcow2',
          size: 4 * 1024 ** 3,
        },
        {
          key: 'virtio2',
          volid: 'local:100/vm-100-disk-2.raw',
          path: '/var/lib/vz/images/100/vm-100-disk-2.raw',
          format: 'raw',
          size: 1024 ** 3,
        },
      ],
    });
  });

  it("changes a disk's options and keeps its volume and size; a different size= is refused (resize changes it)", async () => {
    expect(dataOf(await put({ scsi1: 'local:100/vm-100-disk-1.qcow2,cache=writeback,discard=on,ssd=1' }))).toBeNull();
    expect((await config(100))['scsi1']).toBe('local:100/vm-100-disk-1.qcow2,cache=writeback,discard=on,ssd=1,size=4G');
    expectError(await put({ scsi1: 'local:100/vm-100-disk-1.qcow2,size=8G' }), 400, 'use resize', 'scsi1');
    expect(commands()).toEqual([]);
  });

  it('changes the CD-ROM (VM.Config.CDROM), and refuses an ISO on a storage without it', async () => {
    expectError(await put({ ide2: 'local:100/vm-100-disk-1.qcow2,media=cdrom' }), 400, 'is not an ISO image', 'ide2');
    expectError(await put({ scsi3: 'isos:1' }), 400, "storage 'isos' does not hold VM disks", 'scsi3');
    expect(dataOf(await put({ ide2: 'local:iso/debian.iso,media=cdrom' }))).toBeNull();
    expect((await config(100))['ide2']).toBe('local:iso/debian.iso,media=cdrom');
  });

  it('delete: a disk becomes unused0, a CD-ROM just goes; re-attaching takes it back from unused0', async () => {
    expect(dataOf(await put({ delete: 'scsi1,ide2' }))).toBeNull();
    const detached = await config(100);
    expect(detached).toMatchObject({ unused0: 'local:100/vm-100-disk-1.qcow2' });
    expect(detached).not.toHaveProperty('scsi1');
    expect(detached).not.toHaveProperty('ide2');
    expect(dataOf(await put({ scsi5: 'local:100/vm-100-disk-1.qcow2' }))).toBeNull();
    const attached = await config(100);
    expect(attached['scsi5']).toBe('local:100/vm-100-disk-1.qcow2');
    expect(attached).not.toHaveProperty('unused0');
    expect(commands()).toEqual([]);
  });

  it("refuses another guest's volume and a key that is not one, and never sets unusedN by hand", async () => {
    expectError(await put({ scsi6: 'local:101/vm-101-disk-0.qcow2' }), 400, 'belongs to guest 101', 'scsi6');
    expectError(await put({ unused3: 'local:100/vm-100-disk-1.qcow2' }), 400, 'unused3');
  });

  it('delete of unusedN destroys its volume; a failed allocation leaves the config as it was', async () => {
    expect(dataOf(await put({ delete: 'scsi5' }))).toBeNull();
    expect(dataOf(await put({ delete: 'unused0' }))).toBeNull();
    expect(asked.find((frame) => frame.command === 'guest.volume.free')?.params).toMatchObject({
      vmid: 100,
      volumes: [{ key: 'unused0', volid: 'local:100/vm-100-disk-1.qcow2' }],
    });
    expect(await config(100)).not.toHaveProperty('unused0');
    const before = await config(100);
    failing.add('guest.volume.allocate');
    const refused = await put({ scsi7: 'local:2' });
    expect(refused.status).toBe(500);
    expect(await config(100)).toEqual(before);
  });

  it('resizes as a task: +1G grows the config size; shrinking is a 400', async () => {
    expect(await task('PUT', 'qemu/100/resize', { disk: 'scsi0', size: '+1G' })).toBe('OK');
    expect((await config(100))['scsi0']).toBe('local:100/vm-100-disk-0.qcow2,size=2G');
    expect(asked.find((frame) => frame.command === 'guest.volume.resize')?.params).toMatchObject({
      vmid: 100,
      size: 2 * 1024 ** 3,
      volume: { key: 'scsi0' },
    });
    expectError(
      await call(t, 'PUT', '/nodes/pve1/qemu/100/resize', { form: { disk: 'scsi0', size: '1G' } }),
      400,
      'shrinking disks is not supported',
      'size',
    );
    expectError(
      await call(t, 'PUT', '/nodes/pve1/qemu/100/resize', { form: { disk: 'scsi9', size: '+1G' } }),
      400,
      "disk 'scsi9' does not exist",
      'disk',
    );
  });

  it('moves a disk to another storage and format: the source stays as unusedN, or goes with delete=1', async () => {
    expect(await task('POST', 'qemu/100/move_disk', { disk: 'scsi0', storage: 'fast', format: 'raw' })).toBe('OK');
    const moved = await config(100);
    expect(moved['scsi0']).toBe('fast:100/vm-100-disk-0.raw,size=2G');
    expect(moved['unused0']).toBe('local:100/vm-100-disk-0.qcow2');
    expect(asked.find((frame) => frame.command === 'guest.volume.move')?.params).toMatchObject({
      source: { volid: 'local:100/vm-100-disk-0.qcow2' },
      target: { volid: 'fast:100/vm-100-disk-0.raw', path: '/srv/fast/images/100/vm-100-disk-0.raw' },
      delete: false,
    });
    expect(await task('POST', 'qemu/100/move_disk', { disk: 'scsi0', storage: 'local', format: 'qcow2', delete: 1 })).toBe('OK');
    expect((await config(100))['scsi0']).toBe('local:100/vm-100-disk-1.qcow2,size=2G');
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu/100/move_disk', { form: { disk: 'scsi0', storage: 'isos' } }),
      400,
      'does not hold VM disks',
      'storage',
    );
  });

  it("gives a disk to another VM of the node (target-vmid), named as that VM's", async () => {
    expect(await task('POST', 'qemu/100/move_disk', { disk: 'unused0', 'target-vmid': 101, 'target-disk': 'scsi1' })).toBe('OK');
    expect(await config(100)).not.toHaveProperty('unused0');
    expect((await config(101))['scsi1']).toBe('local:101/vm-101-disk-1.qcow2');
  });

  it('unlink: without force the disk becomes unusedN, with force its volume is destroyed', async () => {
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/101/unlink', { form: { idlist: 'scsi1' } }))).toBeNull();
    expect((await config(101))['unused0']).toBe('local:101/vm-101-disk-1.qcow2');
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/101/unlink', { form: { idlist: 'scsi0,unused0', force: 1 } }))).toBeNull();
    const left = await config(101);
    expect(Object.keys(left).filter((key) => /^(?:scsi|unused)\d+$/.test(key))).toEqual([]);
    expect(asked.find((frame) => frame.command === 'guest.volume.free')?.params).toMatchObject({
      volumes: [{ key: 'scsi0' }, { key: 'unused0' }],
    });
  });

  it('a running VM gets new disks at its next start, but keeps its disks: detaching and moving are refused', async () => {
    expect(await task('POST', 'qemu/100/status/start', {})).toBe('OK');
    expect(dataOf(await put({ scsi2: 'local:1' }))).toBeNull();
    expectError(await put({ delete: 'scsi0' }), 409, 'VM 100 is running: scsi0 can be detached once it is stopped');
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu/100/move_disk', { form: { disk: 'scsi0', storage: 'fast' } }),
      409,
      'moving the disk of a running VM is not supported',
    );
  });

  it("containers: a new mount point needs mp=, a subvol named as create names them; a running container's volume cannot move", async () => {
    expect(await task('POST', 'lxc', { vmid: 200, ostemplate: 'local:vztmpl/busybox.tar.gz' })).toBe('OK');
    expectError(await call(t, 'PUT', '/nodes/pve1/lxc/200/config', { form: { mp0: 'local:2' } }), 400, 'mp=', 'mp0');
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/lxc/200/config', { form: { mp0: 'local:2,mp=/data' } }))).toBeNull();
    expect((await config(200, 'lxc'))['mp0']).toBe('local:200/subvol-200-disk-1,mp=/data,size=2G');
    expect(await task('PUT', 'lxc/200/resize', { disk: 'mp0', size: '3G' })).toBe('OK');
    expect((await config(200, 'lxc'))['mp0']).toBe('local:200/subvol-200-disk-1,mp=/data,size=3G');
    expectError(await call(t, 'PUT', '/nodes/pve1/lxc/200/config', { form: { delete: 'rootfs' } }), 400, 'cannot be removed', 'delete');
    expect(await task('POST', 'lxc/200/status/start', {})).toBe('OK');
    expectError(
      await call(t, 'POST', '/nodes/pve1/lxc/200/move_volume', { form: { volume: 'mp0', storage: 'fast' } }),
      409,
      'cannot move volumes of a running container',
    );
  });
});
