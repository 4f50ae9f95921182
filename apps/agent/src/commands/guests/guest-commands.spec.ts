import { COMMANDS } from '@corral/protocol';
import { WEB1 } from '../../../test-support/guest-specs.js';
import type { GuestDriver } from '../../drivers/guest-driver.js';
import type { CommandContext } from '../command-context.js';
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
    shutdown: method('shutdown'),
    reboot: method('reboot'),
    reset: method('reset'),
    suspend: method('suspend'),
    resume: method('resume'),
    destroy: method('destroy'),
    clone: method('clone'),
    template: method('template'),
    monitor: async () => {
      await method('monitor')();
      return 'VM status: running\r\n';
    },
    list: async () => [],
  };
}

describe('the guest commands', () => {
  function handlers(failing: string[] = []) {
    const steps: string[] = [];
    const commands = guestCommands(fakeDriver(steps, failing), { refresh: async () => void steps.push('refresh') });
    return { commands, steps };
  }

  it('has a handler for every guest command of the catalog', () => {
    expect(Object.keys(handlers().commands).sort()).toEqual(Object.keys(COMMANDS).filter((name) => name.startsWith('guest.')).sort());
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
    const operations = ['create', 'start', 'stop', 'shutdown', 'reboot', 'reset', 'suspend', 'resume', 'destroy', 'clone', 'template', 'monitor'];
    expect(steps).toEqual(operations.flatMap((operation) => [operation, 'refresh']));
  });

  it('reads the run state after a failed command too, and fails with the driver\'s error', async () => {
    const { commands, steps } = handlers(['shutdown']);
    await expect(commands['guest.shutdown']({ type: 'qemu', vmid: 100, timeout: 5, forceStop: false }, context)).rejects.toThrow('VM 100 is not running');
    expect(steps).toEqual(['shutdown', 'refresh']);
  });
});
