import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec, ParamsOf } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import { freePort } from './free-port.js';
import { NativeQemu } from './native-qemu.js';

/*
 * Real QEMU under TCG migrating one VM between two NativeQemu, each with a host root of its own
 * (two nodes on one machine: the images live in different directories, so they are copied). The
 * tests build on each other in order: a live migration from A to B, one that fails, an offline
 * one back. afterAll kills every QEMU whose command line names one of the roots.
 */

const MiB = 1024 * 1024;
const LOCAL = '127.0.0.1';

/** VM 120: a disk the VM uses, and an unused volume it does not have open, each with its own pattern written in. */
const guest: GuestSpec = {
  type: 'qemu',
  vmid: 120,
  name: 'mover',
  memoryMiB: 64,
  cores: 1,
  sockets: 1,
  template: false,
  nics: [{ key: 'net0', mac: 'BC:24:11:3A:5F:20', bridge: 'corralnone0', model: 'virtio' }],
  volumes: [
    {
      key: 'scsi0',
      volid: 'local:120/vm-120-disk-0.qcow2',
      path: '/var/lib/vz/images/120/vm-120-disk-0.qcow2',
      format: 'qcow2',
      size: 64 * MiB,
    },
    {
      key: 'unused0',
      volid: 'local:120/vm-120-disk-1.raw',
      path: '/var/lib/vz/images/120/vm-120-disk-1.raw',
      format: 'raw',
      size: 8 * MiB,
    },
  ],
  config: { boot: 'order=scsi0' },
};
const copy = ['scsi0', 'unused0'];
const volids = { scsi0: 'local:120/vm-120-disk-0.qcow2', unused0: 'local:120/vm-120-disk-1.raw' };

describe('QemuMigration between two nodes with real QEMU (TCG)', () => {
  let roots: { a: string; b: string };
  let a: NativeQemu;
  let b: NativeQemu;
  let log: string[];
  const controller = new AbortController();
  const context: CommandContext = { signal: controller.signal, log: (line) => log.push(line) };
  const image = (root: string, key: string) => join(root, guest.volumes.find((volume) => volume.key === key)?.path ?? '');
  const listed = async (qemu: NativeQemu) => (await qemu.list(controller.signal)).find((vm) => vm.vmid === 120);
  const send = (online: boolean, ports: { nbdPort: number; migrationPort?: number }): ParamsOf<'guest.migrate.send'> => ({
    guest,
    copy,
    online,
    target: { node: 'b', address: LOCAL, ...ports, volids },
  });

  /** qemu-io's check of a pattern (`read -P`) in an image (`-U`: a running VM's too): it prints "Pattern verification failed" when another is there. */
  const holds = async (file: string, format: string, pattern: string, offset: string) => {
    const output = await runChecked('qemu-io', ['-r', '-U', '-f', format, '-c', `read -P ${pattern} ${offset} 1M`, file], {
      signal: controller.signal,
    });
    return !output.stdout.includes('verification failed');
  };

  beforeAll(async () => {
    roots = { a: await mkdtemp(join(tmpdir(), 'corral-mig-a-')), b: await mkdtemp(join(tmpdir(), 'corral-mig-b-')) };
    a = new NativeQemu(await openHost(roots.a), undefined, { accelerator: 'tcg' });
    b = new NativeQemu(await openHost(roots.b), undefined, { accelerator: 'tcg' });
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(async () => {
    for (const root of Object.values(roots)) await removeHostRoot(root);
  });

  it('migrates the running VM live from A to B: it runs on B with the content of its volumes, and is gone from A', async () => {
    await a.create({ guest, allocate: copy }, context);
    await runChecked('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0x5a 0 1M', image(roots.a, 'scsi0')], { signal: controller.signal });
    await runChecked('qemu-io', ['-f', 'raw', '-c', 'write -P 0x3c 1M 1M', image(roots.a, 'unused0')], { signal: controller.signal });
    await a.start(guest, context);
    // Written by the running VM's QEMU, after the start: the mirror must carry it too.
    await a.monitor(120, 'qemu-io drive-scsi0 "write -P 0x6b 32M 1M"', context);
    const before = await listed(a);

    const ports = await b.migration.receive({ guest, copy, online: true, listen: LOCAL }, context);
    expect(ports.nbdPort).toBeGreaterThan(0);
    expect(ports.migrationPort).toBeGreaterThan(0);
    expect(await a.migration.send(send(true, ports), context)).toEqual({ state: 'running' });
    await b.migration.finish({ guest, copy, state: 'running' }, context);

    expect(log).toContain('scsi0: in sync (64.0 MiB)');
    expect(log).toContain('copying local:120/vm-120-disk-1.raw to node b');
    expect(log.some((line) => line.startsWith('migration completed'))).toBe(true);
    expect(await listed(a)).toBeUndefined();
    await expect(stat(image(roots.a, 'scsi0'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(image(roots.a, 'unused0'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(join(roots.a, 'run/corral/qemu'))).toEqual([]);
    const arrived = await listed(b);
    expect(arrived).toMatchObject({ status: 'running' });
    expect(arrived?.pid).not.toBe(before?.pid);
    expect(await b.monitor(120, 'info status', context)).toContain('running');

    await b.stop(120, context);
    expect(await holds(image(roots.b, 'scsi0'), 'qcow2', '0x5a', '0')).toBe(true);
    expect(await holds(image(roots.b, 'scsi0'), 'qcow2', '0x6b', '32M')).toBe(true);
    expect(await holds(image(roots.b, 'scsi0'), 'qcow2', '0', '8M')).toBe(true);
    expect(await holds(image(roots.b, 'unused0'), 'raw', '0x3c', '1M')).toBe(true);
  });

  it('keeps the VM running on the source when the send fails, and abort clears the target', async () => {
    await b.start(guest, context);
    const ports = await a.migration.receive({ guest, copy, online: true, listen: LOCAL }, context);
    // Nothing listens there: the disks are in sync on A by then, the VM's state cannot follow.
    const closed = await freePort(LOCAL);
    await expect(b.migration.send(send(true, { ...ports, migrationPort: closed }), context)).rejects.toThrow(
      /^VM 120: migration failed: .*[Cc]onnection refused/,
    );
    expect(await listed(b)).toMatchObject({ status: 'running' });
    expect(await b.monitor(120, 'info block-jobs', context)).toContain('No active jobs');
    expect(await holds(image(roots.b, 'scsi0'), 'qcow2', '0x5a', '0')).toBe(true);

    await a.migration.abort({ guest, copy }, context);
    expect(await listed(a)).toBeUndefined();
    await expect(stat(image(roots.a, 'scsi0'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(join(roots.a, 'run/corral/qemu'))).toEqual([]);
  });

  it('refuses to migrate a running VM offline, and a target where the VM runs', async () => {
    await expect(b.migration.send(send(false, { nbdPort: 1 }), context)).rejects.toThrow('VM 120 is running: migrate it online');
    await expect(b.migration.receive({ guest, copy, online: true, listen: LOCAL }, context)).rejects.toThrow(
      'VM 120 already exists on this node',
    );
    expect(await listed(b)).toMatchObject({ status: 'running' });
  });

  it('leaves a VM that runs on the target for real alone when asked to abort', async () => {
    await b.migration.abort({ guest, copy }, context);
    expect(log).toContain('VM 120 runs on this node, not as the target of a migration: it is left alone');
    expect(await listed(b)).toMatchObject({ status: 'running' });
    await b.stop(120, context);
  });

  it('migrates the stopped VM offline back to A through a qemu-storage-daemon', async () => {
    const ports = await a.migration.receive({ guest, copy, online: false, listen: LOCAL }, context);
    expect(ports.migrationPort).toBeUndefined();
    expect(await b.migration.send(send(false, ports), context)).toEqual({ state: 'stopped' });
    await a.migration.finish({ guest, copy, state: 'stopped' }, context);

    expect(await readdir(join(roots.a, 'run/corral/qemu'))).toEqual([]);
    await expect(stat(image(roots.b, 'scsi0'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await holds(image(roots.a, 'scsi0'), 'qcow2', '0x5a', '0')).toBe(true);
    expect(await holds(image(roots.a, 'scsi0'), 'qcow2', '0x6b', '32M')).toBe(true);
    expect(await holds(image(roots.a, 'unused0'), 'raw', '0x3c', '1M')).toBe(true);
    await a.start(guest, context);
    expect(await listed(a)).toMatchObject({ status: 'running' });
    await a.stop(120, context);
  });
});
