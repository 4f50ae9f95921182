import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost } from '../../../host/host.js';
import { NativeQemu } from './native-qemu.js';

/*
 * Real QEMU under TCG with `agent: 1`: the VM gets the guest agent's channel, but with no OS no
 * guest agent ever answers on it. afterAll kills every QEMU under the temporary root.
 */

const MiB = 1024 * 1024;

describe('NativeQemu guest agent channel with real QEMU (TCG)', () => {
  let dir: string;
  let qemu: NativeQemu;
  let log: string[];
  const context: CommandContext = { signal: new AbortController().signal, log: (line) => log.push(line) };
  const guest: GuestSpec = {
    type: 'qemu',
    vmid: 140,
    name: 'agent140',
    memoryMiB: 64,
    cores: 1,
    sockets: 1,
    template: false,
    nics: [],
    volumes: [
      {
        key: 'scsi0',
        volid: 'local:140/vm-140-disk-0.qcow2',
        path: '/var/lib/vz/images/140/vm-140-disk-0.qcow2',
        format: 'qcow2',
        size: 16 * MiB,
      },
    ],
    config: { agent: 'enabled=1,type=virtio' },
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qga-'));
    qemu = new NativeQemu(await openHost(dir), undefined, { accelerator: 'tcg', guestAgent: { syncMs: 500 } });
    await qemu.create({ guest, allocate: ['scsi0'] }, { ...context, log: () => undefined });
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(() => removeHostRoot(dir));

  it('starts the VM with the virtio-serial port org.qemu.guest_agent.0 on a unix socket in the runtime folder', async () => {
    await qemu.start(guest, context);
    const commandLine = log.find((line) => line.startsWith('qemu-system-x86_64 ')) ?? '';
    expect(commandLine).toContain(
      `-chardev socket,path=${join(dir, 'run/corral/qemu/140.qga')},server=on,wait=off,id=qga0 -device virtio-serial,id=qga0 -device virtserialport,chardev=qga0,name=org.qemu.guest_agent.0`,
    );
    expect((await stat(join(dir, 'run/corral/qemu/140.qga'))).isSocket()).toBe(true);
  });

  it("answers PVE's error once the sync times out, as no guest agent runs in a VM without an OS, and answers again after it", async () => {
    for (const command of ['guest-ping', 'guest-network-get-interfaces'] as const) {
      await expect(qemu.guestAgent({ vmid: 140, command }, context)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'QEMU guest agent is not running',
      });
    }
  });

  it('falls back to the ACPI power button when the guest agent does not answer guest-shutdown, then stops the VM as forced', async () => {
    await qemu.shutdown(140, 1, true, context);
    expect(log).toContain('VM 140: QEMU guest agent is not running: using the ACPI power button');
    expect(log).toContain('VM 140 did not shut down within 1 s: stopping it');
    expect((await qemu.list(context.signal)).some((vm) => vm.vmid === 140)).toBe(false);
    await expect(stat(join(dir, 'run/corral/qemu/140.qga'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('says the VM is not running once it stopped', async () => {
    await expect(qemu.guestAgent({ vmid: 140, command: 'guest-ping' }, context)).rejects.toThrow('VM 140 is not running');
  });
});
