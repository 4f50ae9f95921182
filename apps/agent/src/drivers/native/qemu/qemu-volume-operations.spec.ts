import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec, GuestVolume } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import { NativeQemu } from './native-qemu.js';
import { QemuVm } from './qemu-vm.js';

/*
 * The volumes of an existing VM with real qemu-img and real QEMU (TCG) in a temporary host root:
 * a new disk, grown offline and online, copied to another storage and format, then removed.
 * afterAll kills every QEMU whose command line names the temporary root.
 */

const MiB = 1024 * 1024;

function disk(
  vmid: number,
  key: string,
  name: string,
  size: number,
  format: 'qcow2' | 'raw' = 'qcow2',
  storage = 'local',
  root = '/var/lib/vz',
): GuestVolume {
  return { key, volid: `${storage}:${vmid}/${name}`, path: `${root}/images/${vmid}/${name}`, format, size };
}

describe('the volumes of a native VM (real qemu-img and QEMU)', () => {
  let dir: string;
  let host: Host;
  let qemu: NativeQemu;
  let log: string[];
  const controller = new AbortController();
  const context: CommandContext = { signal: controller.signal, log: (line) => log.push(line) };
  const virtualSize = async (volume: GuestVolume) =>
    (
      JSON.parse(
        (await runChecked('qemu-img', ['info', '--output=json', join(dir, volume.path)], { signal: controller.signal })).stdout,
      ) as { 'virtual-size': number }
    )['virtual-size'];
  const scsi1 = disk(100, 'scsi1', 'vm-100-disk-1.qcow2', 16 * MiB);
  const guest: GuestSpec = {
    type: 'qemu',
    vmid: 100,
    name: 'vol100',
    memoryMiB: 64,
    cores: 1,
    sockets: 1,
    template: false,
    nics: [],
    volumes: [scsi1],
    config: {},
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qemu-volumes-'));
    host = await openHost(dir);
    qemu = new NativeQemu(host, undefined, { accelerator: 'tcg' });
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(() => removeHostRoot(dir));

  it('allocates a new disk of its size, and refuses one that exists', async () => {
    await qemu.volumes.allocate({ type: 'qemu', vmid: 100, volumes: [scsi1] }, context);
    expect(await virtualSize(scsi1)).toBe(16 * MiB);
    await expect(qemu.volumes.allocate({ type: 'qemu', vmid: 100, volumes: [scsi1] }, context)).rejects.toThrow(
      'VM 100: volume scsi1 already exists',
    );
  });

  it("grows a stopped VM's image with qemu-img and refuses to shrink it", async () => {
    await qemu.volumes.resize({ type: 'qemu', vmid: 100, volume: scsi1, size: 32 * MiB }, context);
    expect(await virtualSize(scsi1)).toBe(32 * MiB);
    await expect(qemu.volumes.resize({ type: 'qemu', vmid: 100, volume: scsi1, size: 8 * MiB }, context)).rejects.toThrow(
      /^shrinking disks is not supported/,
    );
    expect(await virtualSize(scsi1)).toBe(32 * MiB);
  });

  it("grows a running VM's disk online through QMP block_resize: query-block shows the new size", async () => {
    await qemu.start(guest, context);
    const vm = new QemuVm(host, 100);
    try {
      await qemu.volumes.resize({ type: 'qemu', vmid: 100, volume: scsi1, size: 48 * MiB }, context);
      expect(log).toContain('scsi1 (local:100/vm-100-disk-1.qcow2) resized to 50331648 bytes online');
      const blocks = (await vm.qmp('query-block', controller.signal, (qmp) => qmp.execute('query-block'))) as {
        device: string;
        inserted?: { image: { 'virtual-size': number } };
      }[];
      expect(blocks.find((block) => block.device === 'drive-scsi1')?.inserted?.image['virtual-size']).toBe(48 * MiB);
      await expect(qemu.volumes.resize({ type: 'qemu', vmid: 100, volume: scsi1, size: 16 * MiB }, context)).rejects.toThrow(
        /shrinking disks is not supported/,
      );
      await expect(
        qemu.volumes.move(
          {
            type: 'qemu',
            vmid: 100,
            source: scsi1,
            target: disk(100, 'scsi1', 'vm-100-disk-1.raw', 48 * MiB, 'raw'),
            targetVmid: 100,
            delete: false,
          },
          context,
        ),
      ).rejects.toThrow('VM 100 is running: move its disks once it is stopped');
    } finally {
      await qemu.stop(100, context);
    }
    expect(await virtualSize(scsi1)).toBe(48 * MiB);
  });

  it("copies a stopped VM's disk to another storage and format, and with delete removes the source", async () => {
    const target = disk(100, 'scsi1', 'vm-100-disk-1.raw', 48 * MiB, 'raw', 'fast', '/srv/fast');
    await qemu.volumes.move({ type: 'qemu', vmid: 100, source: scsi1, target, targetVmid: 100, delete: false }, context);
    expect(await virtualSize(target)).toBe(48 * MiB);
    expect(await virtualSize(scsi1)).toBe(48 * MiB);
    // A target that exists is refused; the source stays.
    await expect(
      qemu.volumes.move({ type: 'qemu', vmid: 100, source: scsi1, target, targetVmid: 100, delete: true }, context),
    ).rejects.toThrow('already exists');
    expect(await virtualSize(scsi1)).toBe(48 * MiB);

    const other = disk(101, 'scsi0', 'vm-101-disk-0.qcow2', 48 * MiB);
    await qemu.volumes.move({ type: 'qemu', vmid: 100, source: target, target: other, targetVmid: 101, delete: true }, context);
    expect(await virtualSize(other)).toBe(48 * MiB);
    await expect(stat(join(dir, target.path))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a failed copy removes what it wrote', async () => {
    const missing = disk(100, 'scsi2', 'vm-100-disk-2.qcow2', MiB);
    const target = disk(100, 'scsi2', 'vm-100-disk-2.raw', MiB, 'raw');
    await expect(
      qemu.volumes.move({ type: 'qemu', vmid: 100, source: missing, target, targetVmid: 100, delete: true }, context),
    ).rejects.toThrow(/could not make volume scsi2/);
    await expect(stat(join(dir, target.path))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('frees volumes, and a volume already gone is fine', async () => {
    await qemu.volumes.free({ type: 'qemu', vmid: 100, volumes: [scsi1, disk(100, 'unused3', 'vm-100-disk-9.qcow2', MiB)] }, context);
    await expect(stat(join(dir, scsi1.path))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(log).toContain('removed local:100/vm-100-disk-1.qcow2');
  });
});
