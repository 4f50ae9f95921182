import { COMMANDS } from '@corral/protocol';
import { WEB1 } from '../../../test-support/guest-specs.js';
import type { CommandContext } from '../../drivers/command-context.js';
import type { GuestDriver } from '../../drivers/guest-driver.js';
import { guestCommands } from './guest-commands.js';

const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };

/** A driver whose every method notes its name (and waits a turn, as real work does), failing where the test says. */
function fakeDriver(steps: string[], failing: string[] = []): GuestDriver {
  const method = (name: string) => async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    steps.push(name);
    if (failing.includes(name)) throw new Error('VM 100 is not running');
  };
  return {
    name: 'sim',
    create: method('create'),
    start: method('start'),
    stop: method('stop'),
    kill: method('kill'),
    fenceOrder: async () => undefined,
    shutdown: method('shutdown'),
    reboot: method('reboot'),
    reset: method('reset'),
    suspend: method('suspend'),
    resume: method('resume'),
    destroy: method('destroy'),
    clone: method('clone'),
    template: method('template'),
    writeCloudinit: method('writeCloudinit'),
    monitor: async () => {
      await method('monitor')();
      return 'VM status: running\r\n';
    },
    guestAgent: async () => {
      await method('guestAgent')();
      return {};
    },
    containerInterfaces: async () => {
      await method('containerInterfaces')();
      return [{ name: 'lo', hwaddr: '00:00:00:00:00:00', addresses: [] }];
    },
    vnc: () => Promise.reject(new Error('the guest commands open no VNC display')),
    migration: {
      receive: async () => {
        await method('receive')();
        return { nbdPort: 40123, migrationPort: 40124 };
      },
      send: async () => {
        await method('send')();
        return { state: 'running' };
      },
      finish: method('finish'),
      abort: method('abort'),
    },
    backups: {
      backup: async () => {
        await method('backup')();
        return { file: 'dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst', size: 1, mode: 'snapshot' };
      },
      config: async () => ({ type: 'qemu', vmid: 100, config: '' }),
      restore: method('restore'),
    },
    volumes: { allocate: method('allocate'), free: method('free'), resize: method('resize'), move: method('move') },
    snapshots: { create: method('snapshot'), rollback: method('rollback'), delete: method('delsnapshot') },
    list: async () => [],
  };
}

describe('the guest commands', () => {
  function handlers(failing: string[] = []) {
    const steps: string[] = [];
    const refresh = async () => void steps.push('refresh');
    const making = async <T>(vmid: number, operation: () => Promise<T>): Promise<T> => {
      steps.push(`making ${vmid}`);
      try {
        return await operation();
      } finally {
        await refresh();
      }
    };
    const commands = guestCommands(fakeDriver(steps, failing), { refresh, making });
    return { commands, steps };
  }

  it('has a handler for every guest command of the catalog but guest.vnc.open (vnc-stream.ts)', () => {
    expect(Object.keys(handlers().commands).sort()).toEqual(
      Object.keys(COMMANDS)
        .filter((name) => name.startsWith('guest.') && name !== 'guest.vnc.open')
        .sort(),
    );
  });

  it('runs each command on the driver, then reads the run state before answering', async () => {
    const { commands, steps } = handlers();
    await expect(commands['guest.create']({ guest: WEB1, allocate: [] }, context)).resolves.toBeNull();
    await expect(commands['guest.start']({ guest: WEB1 }, context)).resolves.toBeNull();
    await expect(commands['guest.stop']({ type: 'qemu', vmid: 100 }, context)).resolves.toBeNull();
    await expect(commands['guest.shutdown']({ type: 'qemu', vmid: 100, timeout: 5, forceStop: false }, context)).resolves.toBeNull();
    await expect(commands['guest.reboot']({ guest: WEB1, timeout: 5 }, context)).resolves.toBeNull();
    await expect(commands['guest.reset']({ vmid: 100 }, context)).resolves.toBeNull();
    await expect(commands['guest.suspend']({ type: 'qemu', vmid: 100 }, context)).resolves.toBeNull();
    await expect(commands['guest.resume']({ type: 'qemu', vmid: 100 }, context)).resolves.toBeNull();
    await expect(commands['guest.destroy']({ guest: WEB1 }, context)).resolves.toBeNull();
    await expect(commands['guest.clone']({ source: WEB1, target: { ...WEB1, vmid: 101 } }, context)).resolves.toBeNull();
    await expect(commands['guest.template']({ guest: WEB1 }, context)).resolves.toBeNull();
    await expect(commands['guest.monitor']({ vmid: 100, command: 'info status' }, context)).resolves.toBe('VM status: running\r\n');
    await expect(commands['guest.agent']({ vmid: 100, command: 'guest-ping' }, context)).resolves.toEqual({});
    const operations = [
      'create',
      'start',
      'stop',
      'shutdown',
      'reboot',
      'reset',
      'suspend',
      'resume',
      'destroy',
      'clone',
      'template',
      'monitor',
      'guestAgent',
    ];
    const made: Record<string, string> = { create: 'making 100', clone: 'making 101' };
    expect(steps).toEqual(operations.flatMap((operation) => [...(made[operation] ? [made[operation]] : []), operation, 'refresh']));
  });

  it("reads a container's interfaces without a refresh: nothing changes", async () => {
    const { commands, steps } = handlers();
    await expect(commands['guest.interfaces']({ vmid: 200 }, context)).resolves.toEqual([
      { name: 'lo', hwaddr: '00:00:00:00:00:00', addresses: [] },
    ]);
    expect(steps).toEqual(['containerInterfaces']);
  });

  it("runs the migrate commands on the driver's migration, answering with its results, and reads the run state after each", async () => {
    const { commands, steps } = handlers();
    await expect(
      commands['guest.migrate.receive']({ guest: WEB1, copy: ['scsi0'], online: true, listen: '192.0.2.12' }, context),
    ).resolves.toEqual({ nbdPort: 40123, migrationPort: 40124 });
    const target = {
      node: 'pve2',
      address: '192.0.2.12',
      nbdPort: 40123,
      migrationPort: 40124,
      volids: { scsi0: 'local:100/vm-100-disk-0.qcow2' },
    };
    await expect(commands['guest.migrate.send']({ guest: WEB1, copy: ['scsi0'], online: true, target }, context)).resolves.toEqual({
      state: 'running',
    });
    await expect(commands['guest.migrate.finish']({ guest: WEB1, copy: ['scsi0'], state: 'running' }, context)).resolves.toBeNull();
    await expect(commands['guest.migrate.abort']({ guest: WEB1, copy: ['scsi0'] }, context)).resolves.toBeNull();
    expect(steps).toEqual(['receive', 'send', 'finish', 'abort'].flatMap((operation) => [operation, 'refresh']));
  });

  it("runs the volume commands on the driver's volumes, and reads the run state after each", async () => {
    const { commands, steps } = handlers();
    const [disk] = WEB1.volumes;
    if (disk === undefined) throw new Error('WEB1 has a disk');
    await expect(commands['guest.volume.allocate']({ type: 'qemu', vmid: 100, volumes: [disk] }, context)).resolves.toBeNull();
    await expect(commands['guest.volume.resize']({ type: 'qemu', vmid: 100, volume: disk, size: 1 }, context)).resolves.toBeNull();
    await expect(
      commands['guest.volume.move']({ type: 'qemu', vmid: 100, source: disk, target: disk, targetVmid: 100, delete: true }, context),
    ).resolves.toBeNull();
    await expect(commands['guest.volume.free']({ type: 'qemu', vmid: 100, volumes: [disk] }, context)).resolves.toBeNull();
    expect(steps).toEqual(['allocate', 'resize', 'move', 'free'].flatMap((operation) => [operation, 'refresh']));
  });

  it("runs the snapshot commands on the driver's snapshots, and reads the run state after each", async () => {
    const { commands, steps } = handlers();
    await expect(commands['guest.snapshot.create']({ guest: WEB1, snapname: 'before', vmstate: true }, context)).resolves.toBeNull();
    await expect(
      commands['guest.snapshot.rollback']({ guest: WEB1, snapname: 'before', vmstate: true, start: false }, context),
    ).resolves.toBeNull();
    await expect(commands['guest.snapshot.delete']({ guest: WEB1, snapname: 'before' }, context)).resolves.toBeNull();
    expect(steps).toEqual(['snapshot', 'rollback', 'delsnapshot'].flatMap((operation) => [operation, 'refresh']));
  });

  it("reads the run state after a failed command too, and fails with the driver's error", async () => {
    const { commands, steps } = handlers(['shutdown']);
    await expect(commands['guest.shutdown']({ type: 'qemu', vmid: 100, timeout: 5, forceStop: false }, context)).rejects.toThrow(
      'VM 100 is not running',
    );
    expect(steps).toEqual(['shutdown', 'refresh']);
  });
});
