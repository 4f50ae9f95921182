import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { guestSpec } from './guest-spec.js';

const LOCAL: StorageRow = {
  storage: 'local',
  type: 'dir',
  path: '/var/lib/vz',
  content: ['images', 'rootdir'],
  nodes: null,
  shared: false,
  disable: false,
  pruneBackups: null,
  isMountpoint: false,
};

describe('guestSpec', () => {
  it("resolves volumes to host paths, a linked clone's with its base", () => {
    const spec = guestSpec(
      {
        vmid: 101,
        type: 'qemu',
        config: { scsi0: 'local:100/vm-100-disk-0.qcow2/101/vm-101-disk-0.qcow2,size=32G', net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0' },
      },
      new Map([['local', LOCAL]]),
    );
    expect(spec.volumes).toEqual([
      {
        key: 'scsi0',
        volid: 'local:100/vm-100-disk-0.qcow2/101/vm-101-disk-0.qcow2',
        path: '/var/lib/vz/images/101/vm-101-disk-0.qcow2',
        format: 'qcow2',
        size: 32 * 1024 ** 3,
        base: '/var/lib/vz/images/100/vm-100-disk-0.qcow2',
      },
    ]);
    expect(spec.nics).toEqual([{ key: 'net0', mac: 'BC:24:11:00:00:01', model: 'virtio', bridge: 'vmbr0' }]);
  });

  it('says which volume is on a storage that was removed (DELETE /storage/{id} with force=1)', () => {
    expect(() =>
      guestSpec({ vmid: 150, type: 'qemu', config: { scsi0: 'fast:150/vm-150-disk-0.qcow2,size=1G' } }, new Map([['local', LOCAL]])),
    ).toThrow("scsi0: storage 'fast' of volume 'fast:150/vm-150-disk-0.qcow2' does not exist any more");
  });
});
