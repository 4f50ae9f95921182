import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { QEMU } from '../guest-kinds.js';
import { newSize } from './guest-volumes.service.js';
import { planVolumeChange, type ConfigChange } from './volume-change.js';

const GIB = 1024 ** 3;
const storage = (id: string, content: StorageRow['content']): StorageRow => ({
  storage: id,
  type: 'dir',
  path: `/srv/${id}`,
  content,
  nodes: null,
  shared: false,
  disable: false,
  pruneBackups: null,
  isMountpoint: false,
});
const STORAGES = new Map([storage('local', ['images', 'iso', 'rootdir']), storage('fast', ['images'])].map((row) => [row.storage, row]));
const CONFIG = {
  scsi0: 'local:100/vm-100-disk-0.qcow2,size=32G',
  scsi1: 'fast:100/vm-100-disk-0.raw,size=4G',
  unused0: 'local:100/vm-100-disk-2.qcow2',
  ide2: 'local:iso/x.iso,media=cdrom',
};
const plan = (change: Partial<ConfigChange>, options: { running?: boolean; force?: boolean } = {}) =>
  planVolumeChange({
    kind: QEMU,
    vmid: 100,
    node: 'pve1',
    config: CONFIG,
    change: { set: {}, deleted: [], ...change },
    storages: STORAGES,
    running: options.running ?? false,
    ...(options.force !== undefined ? { force: options.force } : {}),
  });

describe('planVolumeChange', () => {
  it('names a new disk with the lowest number free on its storage', () => {
    const planned = plan({ set: { scsi2: 'local:1', virtio0: 'fast:2,format=raw' } });
    expect(planned.config['scsi2']).toBe('local:100/vm-100-disk-1.qcow2,size=1G');
    expect(planned.config['virtio0']).toBe('fast:100/vm-100-disk-1.raw,size=2G');
    expect(planned.allocate).toEqual(['scsi2', 'virtio0']);
    expect([...planned.storages]).toEqual(['local', 'fast']);
  });

  it('a replaced disk becomes the next free unusedN; with force a detached one is freed, an unusedN always', () => {
    expect(plan({ set: { scsi1: 'local:8' } }).config).toMatchObject({
      scsi1: 'local:100/vm-100-disk-1.qcow2,size=8G',
      unused1: 'fast:100/vm-100-disk-0.raw',
    });
    const forced = plan({ deleted: ['scsi1', 'unused0', 'ide2'] }, { force: true });
    expect(forced.free).toEqual(['scsi1', 'unused0']);
    expect(Object.keys(forced.config)).toEqual(['scsi0']);
  });

  it('gives a network card changed together with a disk its MAC address: a new one, or the one of the card it replaces', () => {
    const planned = planVolumeChange({
      kind: QEMU,
      vmid: 100,
      node: 'pve1',
      config: { ...CONFIG, net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0' },
      change: { set: { scsi2: 'local:1', net0: 'model=virtio,bridge=vmbr1', net1: 'model=e1000,bridge=vmbr0,firewall=0' }, deleted: [] },
      storages: STORAGES,
      running: false,
    });
    expect(planned.config['net0']).toBe('virtio=BC:24:11:00:00:01,bridge=vmbr1');
    expect(planned.config['net1']).toMatch(/^e1000=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0,firewall=0$/);
  });

  it("keeps a disk's size= given in bytes, PVE's disk-size without a unit", () => {
    expect(plan({ set: { scsi0: `local:100/vm-100-disk-0.qcow2,size=${32 * GIB},cache=none` } }).config['scsi0']).toBe(
      'local:100/vm-100-disk-0.qcow2,cache=none,size=32G',
    );
  });

  it('does not free a volume that the same change attaches again', () => {
    const planned = plan({ deleted: ['unused0'], set: { scsi3: 'local:100/vm-100-disk-2.qcow2' } });
    expect(planned.free).toEqual([]);
    expect(planned.config['scsi3']).toBe('local:100/vm-100-disk-2.qcow2');
  });

  it("refuses to detach a running guest's disk, and lets it swap its CD-ROM", () => {
    expect(() => plan({ deleted: ['scsi1'] }, { running: true })).toThrow('VM 100 is running: scsi1 can be detached once it is stopped');
    expect(plan({ set: { ide2: 'none,media=cdrom' } }, { running: true }).config['ide2']).toBe('none,media=cdrom');
  });
});

describe('newSize (resize)', () => {
  it.each([
    ['+1G', 32 * GIB, 33 * GIB],
    ['40G', 32 * GIB, 40 * GIB],
    ['1.5T', 32 * GIB, 1.5 * 1024 * GIB],
    ['34359738368', 32 * GIB, 32 * GIB],
    ['+512M', undefined, undefined],
  ])('%s from %p is %p', (text, current, expected) => {
    if (expected === undefined) expect(() => newSize(text, current)).toThrow('is not known');
    else expect(newSize(text, current)).toBe(expected);
  });

  it('refuses shrinking, as PVE', () => {
    expect(() => newSize('16G', 32 * GIB)).toThrow('shrinking disks is not supported');
  });
});
