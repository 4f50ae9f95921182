import type { GuestVolume } from '@corral/protocol';
import type { CommandContext } from '../command-context.js';
import { PveVolumes } from './pve-volumes.js';

// The argument vectors the pve driver's volume commands give PVE's tools, recorded.

const GIB = 1024 ** 3;
const SCSI1: GuestVolume = {
  key: 'scsi1',
  volid: 'local:100/vm-100-disk-1.qcow2',
  path: '/var/lib/vz/images/100/vm-100-disk-1.qcow2',
  format: 'qcow2',
  size: 4 * GIB,
};
const MP0: GuestVolume = {
  key: 'mp0',
  volid: 'local:200/subvol-200-disk-1',
  path: '/var/lib/vz/images/200/subvol-200-disk-1',
  format: 'subvol',
  size: 2 * GIB,
};

describe("the pve driver's volumes of existing guests", () => {
  const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };
  let calls: string[][];
  let failing: string | undefined;
  const volumes = new PveVolumes(async (program, args) => {
    calls.push([program, ...args]);
    if (failing !== undefined && args.includes(failing)) throw new Error(`${failing} failed`);
  });
  beforeEach(() => {
    calls = [];
    failing = undefined;
  });

  it("allocates with pvesm alloc under Corral's names (KiB), and frees what it made when one fails", async () => {
    await volumes.allocate({ type: 'qemu', vmid: 100, volumes: [SCSI1] }, context);
    expect(calls).toEqual([['pvesm', 'alloc', 'local', '100', 'vm-100-disk-1.qcow2', String(4 * 1024 * 1024), '--format', 'qcow2']]);
    calls = [];
    failing = 'subvol-200-disk-2';
    const second = { ...MP0, key: 'mp1', volid: 'local:200/subvol-200-disk-2' };
    await expect(volumes.allocate({ type: 'lxc', vmid: 200, volumes: [MP0, second] }, context)).rejects.toThrow('failed');
    expect(calls.at(-1)).toEqual(['pvesm', 'free', 'local:200/subvol-200-disk-1']);
  });

  it('frees with pvesm free, resizes with qm/pct resize in bytes', async () => {
    await volumes.free({ type: 'lxc', vmid: 200, volumes: [MP0] }, context);
    await volumes.resize({ type: 'qemu', vmid: 100, volume: SCSI1, size: 5 * GIB }, context);
    await volumes.resize({ type: 'lxc', vmid: 200, volume: MP0, size: 3 * GIB }, context);
    expect(calls).toEqual([
      ['pvesm', 'free', 'local:200/subvol-200-disk-1'],
      ['qm', 'resize', '100', 'scsi1', String(5 * GIB)],
      ['pct', 'resize', '200', 'mp0', String(3 * GIB)],
    ]);
  });

  it('moves with qm disk move / pct move-volume, to a storage or to another guest', async () => {
    const raw = { ...SCSI1, volid: 'fast:100/vm-100-disk-1.raw', format: 'raw' as const };
    await volumes.move({ type: 'qemu', vmid: 100, source: SCSI1, target: raw, targetVmid: 100, delete: true }, context);
    await volumes.move(
      { type: 'qemu', vmid: 100, source: SCSI1, target: { ...SCSI1, key: 'virtio3' }, targetVmid: 101, delete: true },
      context,
    );
    await volumes.move(
      { type: 'lxc', vmid: 200, source: MP0, target: { ...MP0, volid: 'big:200/subvol-200-disk-1' }, targetVmid: 200, delete: false },
      context,
    );
    expect(calls).toEqual([
      ['qm', 'disk', 'move', '100', 'scsi1', 'fast', '--format', 'raw', '--delete', '1'],
      ['qm', 'disk', 'move', '100', 'scsi1', '--target-vmid', '101', '--target-disk', 'virtio3', '--delete', '1'],
      ['pct', 'move-volume', '200', 'mp0', 'big'],
    ]);
  });
});
