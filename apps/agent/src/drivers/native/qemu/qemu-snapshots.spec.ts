import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost } from '../../../host/host.js';
import { runChecked, runProgram } from '../../../host/run-program.js';
import { NativeQemu } from './native-qemu.js';

/*
 * Real qemu-img and real QEMU (TCG) in a temporary host root: a VM's disk content changed after a
 * snapshot and undone by its rollback, stopped and running, with and without the VM's state. The
 * tests build on each other in order; afterAll kills every QEMU under the root.
 */

const MiB = 1024 * 1024;
const PATH = '/var/lib/vz/images/300/vm-300-disk-0.qcow2';

const VM: GuestSpec = {
  type: 'qemu',
  vmid: 300,
  name: 'snap300',
  memoryMiB: 64,
  cores: 1,
  sockets: 1,
  template: false,
  nics: [],
  volumes: [{ key: 'scsi0', volid: 'local:300/vm-300-disk-0.qcow2', path: PATH, format: 'qcow2', size: 16 * MiB }],
  config: {},
};

describe('QEMU snapshots with real qemu-img and QEMU (TCG)', () => {
  let dir: string;
  let qemu: NativeQemu;
  let log: string[];
  const signal = new AbortController().signal;
  const context: CommandContext = { signal, log: (line) => log.push(line) };
  const image = () => join(dir, PATH);
  /** The snapshot table as `qemu-img snapshot -l` prints it (`-U`: a running QEMU holds the image). */
  const table = async () => (await runChecked('qemu-img', ['snapshot', '-l', '-U', image()], { signal })).stdout;
  /** Writes a pattern byte into the disk's first 64 KiB (the VM stopped), and checks which pattern is there. */
  const write = (pattern: number) => runChecked('qemu-io', ['-f', 'qcow2', '-c', `write -P ${pattern} 0 64k`, image()], { signal });
  const holds = async (pattern: number) => {
    const read = await runProgram('qemu-io', ['-f', 'qcow2', '-c', `read -P ${pattern} 0 64k`, image()], { signal });
    return read.code === 0 && !/Pattern verification failed/.test(read.stdout);
  };
  const status = async () => (await qemu.list(signal)).find((guest) => guest.vmid === VM.vmid)?.status ?? 'stopped';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qemu-snap-'));
    qemu = new NativeQemu(await openHost(dir), undefined, { accelerator: 'tcg' });
    await qemu.create({ guest: VM, allocate: ['scsi0'] }, { signal, log: () => undefined });
    await write(0xaa);
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(() => removeHostRoot(dir));

  it('takes a snapshot of a stopped VM with qemu-img, and refuses its name a second time', async () => {
    await qemu.snapshots.create({ guest: VM, snapname: 'first', vmstate: false }, context);
    expect(await table()).toMatch(/\bfirst\b/);
    expect(log).toEqual(["local:300/vm-300-disk-0.qcow2: created snapshot 'first'"]);
    await expect(qemu.snapshots.create({ guest: VM, snapname: 'first', vmstate: false }, context)).rejects.toThrow(
      "snapshot name 'first' already used (on volume local:300/vm-300-disk-0.qcow2)",
    );
  });

  it('undoes a change of the disk by a rollback', async () => {
    await write(0xbb);
    expect(await holds(0xbb)).toBe(true);
    await qemu.snapshots.rollback({ guest: VM, snapname: 'first', vmstate: false, start: false }, context);
    expect(await holds(0xaa)).toBe(true);
    expect(await holds(0xbb)).toBe(false);
    expect(await status()).toBe('stopped');
  });

  it("refuses a rollback to a snapshot the disk lacks, and a raw disk with PVE's words", async () => {
    await expect(qemu.snapshots.rollback({ guest: VM, snapname: 'nothing', vmstate: false, start: false }, context)).rejects.toThrow(
      "snapshot 'nothing' does not exist on volume local:300/vm-300-disk-0.qcow2",
    );
    const raw: GuestSpec = {
      ...VM,
      volumes: [
        {
          key: 'scsi0',
          volid: 'local:300/vm-300-disk-1.raw',
          path: '/var/lib/vz/images/300/vm-300-disk-1.raw',
          format: 'raw',
          size: 16 * MiB,
        },
      ],
    };
    await expect(qemu.snapshots.create({ guest: raw, snapname: 'second', vmstate: false }, context)).rejects.toThrow(
      'snapshot feature is not available (volume local:300/vm-300-disk-1.raw is raw)',
    );
  });

  it("takes a running VM's disk snapshot over QMP and deletes it again while it runs", async () => {
    await qemu.start(VM, context);
    await qemu.snapshots.create({ guest: VM, snapname: 'live', vmstate: false }, context);
    expect(await table()).toMatch(/\blive\b/);
    await qemu.snapshots.delete({ guest: VM, snapname: 'live' }, context);
    expect(await table()).not.toMatch(/\blive\b/);
  });

  it("saves a running VM's state with a snapshot, and a rollback to it runs the VM again from that state", async () => {
    await qemu.snapshots.create({ guest: VM, snapname: 'withram', vmstate: true }, context);
    // The state's size is the table's column after the name; a disk-only snapshot's is 0 B.
    expect(await table()).toMatch(/\bwithram\s+[1-9][\d.]*\s*[KMG]iB/);
    await expect(qemu.snapshots.rollback({ guest: VM, snapname: 'withram', vmstate: true, start: false }, context)).rejects.toThrow(
      'VM 300 is running: stop it before rolling it back',
    );
    await qemu.stop(VM.vmid, context);
    await qemu.snapshots.rollback({ guest: VM, snapname: 'withram', vmstate: true, start: false }, context);
    expect(log.some((line) => line.includes('-loadvm withram'))).toBe(true);
    expect(await status()).toBe('running');
    await qemu.stop(VM.vmid, context);
  });

  it('deletes a snapshot of a stopped VM with qemu-img; deleting it again only says so', async () => {
    await qemu.snapshots.delete({ guest: VM, snapname: 'first' }, context);
    expect(await table()).not.toMatch(/\bfirst\b/);
    log = [];
    await qemu.snapshots.delete({ guest: VM, snapname: 'first' }, context);
    expect(log).toEqual(["local:300/vm-300-disk-0.qcow2: has no snapshot 'first'"]);
  });
});
