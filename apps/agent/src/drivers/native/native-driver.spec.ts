import type { GuestRuntime } from '@corral/protocol';
import { Socket } from 'node:net';
import { DB1, WEB1 } from '../../../test-support/guest-specs.js';
import type { CommandContext } from '../command-context.js';
import { NativeDriver, type NativeContainers, type NativeVms } from './native-driver.js';

const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };

/** A part that records each call as [method, first argument] and lists the given guests. */
function fakePart(listed: GuestRuntime[]) {
  const calls: [string, unknown][] = [];
  const record =
    (method: string) =>
    async (first: unknown): Promise<void> => {
      calls.push([method, first]);
    };
  const part: NativeVms = {
    create: record('create'),
    start: record('start'),
    stop: record('stop'),
    kill: record('kill'),
    fenceOrder: async () => undefined,
    shutdown: record('shutdown'),
    reboot: record('reboot'),
    suspend: record('suspend'),
    resume: record('resume'),
    destroy: record('destroy'),
    clone: record('clone'),
    template: record('template'),
    reset: record('reset'),
    writeCloudinit: record('writeCloudinit'),
    monitor: async (vmid) => {
      calls.push(['monitor', vmid]);
      return 'VM status: running\r\n';
    },
    guestAgent: async (params) => {
      calls.push(['guestAgent', params.vmid]);
      return {};
    },
    vnc: async (vmid) => {
      calls.push(['vnc', vmid]);
      return new Socket();
    },
    migration: {
      receive: async () => ({ nbdPort: 0 }),
      send: async () => ({ state: 'stopped' }),
      finish: record('finish'),
      abort: record('abort'),
    },
    backups: {
      backup: async (params) => {
        calls.push(['backup', params.guest.vmid]);
        return { file: 'dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst', size: 1, mode: params.mode };
      },
      config: async (params) => {
        calls.push(['config', params.file]);
        return { type: 'qemu', vmid: 100, config: '' };
      },
      restore: async (params) => {
        calls.push(['restore', params.guest.vmid]);
      },
    },
    volumes: { allocate: record('allocate'), free: record('free'), resize: record('resize'), move: record('move') },
    snapshots: {
      create: async (params) => void calls.push(['snapshot', params.snapname]),
      rollback: async (params) => void calls.push(['rollback', params.snapname]),
      delete: async (params) => void calls.push(['delsnapshot', params.snapname]),
    },
    list: async () => listed,
  };
  return { part, calls };
}

describe('the native driver', () => {
  const running = (vmid: number, type: GuestRuntime['type']): GuestRuntime => ({
    vmid,
    type,
    status: 'running',
    pid: vmid * 10,
    uptime: 5,
    cpu: 0.01,
    mem: 1024,
  });

  function driver() {
    const vms = fakePart([running(100, 'qemu')]);
    const containers = fakePart([running(200, 'lxc')]);
    const { reset: _reset, monitor: _monitor, guestAgent: _guestAgent, vnc: _vnc, ...containerPart } = containers.part;
    const interfaces = async (vmid: number) => {
      containers.calls.push(['interfaces', vmid]);
      return [];
    };
    const native = new NativeDriver(vms.part, { ...containerPart, interfaces } satisfies NativeContainers);
    return { native, vms: vms.calls, containers: containers.calls };
  }

  it('hands each operation to the part of the guest type', async () => {
    const { native, vms, containers } = driver();
    await native.create({ guest: DB1, allocate: ['rootfs'] }, context);
    await native.start(WEB1, context);
    await native.stop('lxc', 200, context);
    await native.kill('qemu', 100, context);
    await native.shutdown({ type: 'qemu', vmid: 100, timeout: 30, forceStop: true }, context);
    await native.reboot({ guest: DB1, timeout: 30 }, context);
    await native.suspend('qemu', 100, context);
    await native.resume('lxc', 200, context);
    await native.destroy(WEB1, context);
    await native.clone({ source: DB1, target: { ...DB1, vmid: 201 } }, context);
    await native.template(WEB1, context);
    await native.reset(100, context);
    expect(await native.monitor(100, 'info status', context)).toBe('VM status: running\r\n');
    expect(await native.guestAgent({ vmid: 100, command: 'guest-ping' }, context)).toEqual({});
    expect(await native.vnc(100, context)).toBeInstanceOf(Socket);
    expect(vms).toEqual([
      ['start', WEB1],
      ['kill', 100],
      ['shutdown', 100],
      ['suspend', 100],
      ['destroy', WEB1],
      ['template', WEB1],
      ['reset', 100],
      ['monitor', 100],
      ['guestAgent', 100],
      ['vnc', 100],
    ]);
    expect(containers).toEqual([
      ['create', { guest: DB1, allocate: ['rootfs'] }],
      ['stop', 200],
      ['reboot', DB1],
      ['resume', 200],
      ['clone', { source: DB1, target: { ...DB1, vmid: 201 } }],
    ]);
  });

  it('hands each step of a migration to the part of the guest type', async () => {
    const { native, vms, containers } = driver();
    await native.migration.finish({ guest: WEB1, copy: [], state: 'stopped' }, context);
    await native.migration.abort({ guest: DB1, copy: [] }, context);
    expect(vms).toEqual([['finish', { guest: WEB1, copy: [], state: 'stopped' }]]);
    expect(containers).toEqual([['abort', { guest: DB1, copy: [] }]]);
  });

  it('hands a backup and a restore to the part of the guest type, and the reading of a config to the part the archive names', async () => {
    const { native, vms, containers } = driver();
    const storage = { path: '/var/lib/vz', mountpoint: false };
    await native.backups.backup({ guest: DB1, config: '', mode: 'snapshot', compress: 'zstd', storage }, context);
    await native.backups.config({ storage, file: 'dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst' }, context);
    await native.backups.config({ storage, file: 'dump/vzdump-lxc-200-2025_01_31-02_00_00.tar' }, context);
    await native.backups.restore(
      { guest: WEB1, storage, file: 'dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst', restore: ['scsi0'] },
      context,
    );
    expect(vms).toEqual([
      ['config', 'dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst'],
      ['restore', WEB1.vmid],
    ]);
    expect(containers).toEqual([
      ['backup', DB1.vmid],
      ['config', 'dump/vzdump-lxc-200-2025_01_31-02_00_00.tar'],
    ]);
  });

  it('hands the volume commands to the part of the guest type', async () => {
    const { native, vms, containers } = driver();
    const [disk] = WEB1.volumes;
    const [root] = DB1.volumes;
    if (disk === undefined || root === undefined) throw new Error('the specs have volumes');
    await native.volumes.allocate({ type: 'qemu', vmid: 100, volumes: [disk] }, context);
    await native.volumes.resize({ type: 'lxc', vmid: 200, volume: root, size: 1 }, context);
    await native.volumes.move({ type: 'qemu', vmid: 100, source: disk, target: disk, targetVmid: 100, delete: false }, context);
    await native.volumes.free({ type: 'lxc', vmid: 200, volumes: [root] }, context);
    expect(vms.map(([method]) => method)).toEqual(['allocate', 'move']);
    expect(containers.map(([method]) => method)).toEqual(['resize', 'free']);
  });

  it('hands a snapshot command to the part of the guest type', async () => {
    const { native, vms, containers } = driver();
    await native.snapshots.create({ guest: WEB1, snapname: 'vm', vmstate: false }, context);
    await native.snapshots.rollback({ guest: DB1, snapname: 'ct', vmstate: false, start: false }, context);
    await native.snapshots.delete({ guest: DB1, snapname: 'ct' }, context);
    expect(vms).toEqual([['snapshot', 'vm']]);
    expect(containers).toEqual([
      ['rollback', 'ct'],
      ['delsnapshot', 'ct'],
    ]);
  });

  it("reads a container's interfaces from the containers part", async () => {
    const { native, vms, containers } = driver();
    await expect(native.containerInterfaces(200, context)).resolves.toEqual([]);
    expect(containers).toEqual([['interfaces', 200]]);
    expect(vms).toEqual([]);
  });

  it('lists the guests of both parts', async () => {
    await expect(driver().native.list(context.signal)).resolves.toEqual([running(100, 'qemu'), running(200, 'lxc')]);
  });

  it('answers invalid-params for the reset, monitor or VNC display of a container, running nothing', async () => {
    const { native, vms } = driver();
    await expect(native.reset(200, context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'CT 200 is a container: containers have no reset',
    });
    await expect(native.monitor(200, 'info status', context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'CT 200 is a container: containers have no monitor',
    });
    await expect(native.vnc(200, context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'CT 200 is a container: containers have no VNC display',
    });
    await expect(native.guestAgent({ vmid: 200, command: 'guest-ping' }, context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'CT 200 is a container: containers have no QEMU guest agent',
    });
    expect(vms).toEqual([]);
  });
});
