import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { LXC, QEMU } from '../guest-kinds.js';
import { linkedClonesOf } from '../linked-clones.js';
import { migratePlan, storageMapping } from './migrate-plan.js';

function storage(id: string, changes: Partial<StorageRow> = {}): StorageRow {
  return {
    storage: id,
    type: 'dir',
    path: `/srv/${id}`,
    content: ['images'],
    nodes: null,
    shared: false,
    disable: false,
    pruneBackups: null,
    isMountpoint: false,
    ...changes,
  };
}

const vm = (vmid: number, config: Record<string, string>) => ({ vmid, kind: QEMU, config });

const STORAGES = new Map(
  [
    storage('local', { content: ['images', 'iso', 'rootdir'] }),
    storage('fast'),
    storage('nfs', { shared: true, content: ['images', 'iso'] }),
    storage('isos', { content: ['iso'] }),
    storage('pve1only', { nodes: ['pve1'] }),
  ].map((row) => [row.storage, row]),
);

describe('storageMapping', () => {
  it.each([
    [{}, { local: 'local', nfs: 'nfs' }],
    [{ targetstorage: '1' }, { local: 'local', nfs: 'nfs' }],
    [{ targetstorage: 'fast' }, { local: 'fast', nfs: 'fast' }],
    [{ targetstorage: 'local:fast' }, { local: 'fast', nfs: 'nfs' }],
    [{ targetstorage: 'local:fast,nfs' }, { local: 'fast', nfs: 'nfs', other: 'nfs' }],
    [{ targetstorage: 'local:fast;nfs:local' }, { local: 'fast', nfs: 'local' }],
    [{ storage: 'fast' }, { local: 'fast', nfs: 'fast' }],
  ])('maps %j as %j', (params, expected) => {
    const mapping = storageMapping(params);
    expect(Object.fromEntries(Object.keys(expected).map((source) => [source, mapping.targetOf(source)]))).toEqual(expected);
  });

  it('names the parameter the target storages came from', () => {
    expect([storageMapping({}).param, storageMapping({ targetstorage: 'fast' }).param, storageMapping({ storage: 'fast' }).param]).toEqual([
      undefined,
      'targetstorage',
      'storage',
    ]);
  });

  it.each([
    [{ targetstorage: 'fast,nfs' }, 'maps the other storages twice'],
    [{ targetstorage: 'local:fast,local:nfs' }, "maps storage 'local' twice"],
    [{ targetstorage: 'local:fast:nfs' }, "'local:fast:nfs' is not a pair <source storage>:<target storage>"],
    [{ targetstorage: 'fast', storage: 'nfs' }, 'give storage or targetstorage, not both'],
  ])('refuses %j', (params, message) => {
    expect(() => storageMapping(params)).toThrow(message);
  });
});

describe('migratePlan', () => {
  const config = {
    name: 'web1',
    scsi0: 'local:100/vm-100-disk-0.qcow2,iothread=1,size=32G',
    scsi1: 'nfs:100/vm-100-disk-1.raw,size=1G',
    ide2: 'none,media=cdrom',
  };

  it('moves the disks on local storages, keeping those on shared ones where they are', () => {
    expect(migratePlan(vm(100, config), 'pve2', STORAGES, storageMapping({}))).toEqual({
      copy: ['scsi0'],
      config,
      storages: new Set(['local']),
    });
  });

  it('renames the disks that go to another storage, shared ones too', () => {
    const plan = migratePlan(vm(100, config), 'pve2', STORAGES, storageMapping({ targetstorage: 'fast' }));
    expect(plan.copy).toEqual(['scsi0', 'scsi1']);
    expect(plan.config).toEqual({
      ...config,
      scsi0: 'fast:100/vm-100-disk-0.qcow2,iothread=1,size=32G',
      scsi1: 'fast:100/vm-100-disk-1.raw,size=1G',
    });
    expect(plan.storages).toEqual(new Set(['fast']));
  });

  it('keeps a CD-ROM on a shared storage the target has, and refuses one on a local storage', () => {
    expect(migratePlan(vm(100, { ...config, ide2: 'nfs:iso/debian.iso,media=cdrom' }), 'pve2', STORAGES, storageMapping({})).copy).toEqual([
      'scsi0',
    ]);
    expect(() =>
      migratePlan(vm(100, { ...config, ide2: 'local:iso/debian.iso,media=cdrom' }), 'pve2', STORAGES, storageMapping({})),
    ).toThrow("can't migrate local cdrom drive ide2 (local:iso/debian.iso): eject it first");
  });

  it('refuses target storages that cannot take the disks there, naming the parameter that chose them', () => {
    expect(() => migratePlan(vm(100, config), 'pve2', STORAGES, storageMapping({ targetstorage: 'nosuch' }))).toThrow(
      "storage 'nosuch' does not exist",
    );
    expect(() => migratePlan(vm(100, config), 'pve2', STORAGES, storageMapping({ storage: 'isos' }))).toThrow(
      expect.objectContaining({
        message: "storage 'isos' does not hold VM disks (content 'images')",
        details: { problems: [expect.objectContaining({ param: 'storage' })] },
      }),
    );
    expect(() => migratePlan(vm(100, { scsi0: 'pve1only:100/vm-100-disk-0.qcow2,size=1G' }), 'pve2', STORAGES, storageMapping({}))).toThrow(
      expect.objectContaining({
        message: "storage 'pve1only' is not available on node 'pve2'",
        details: { problems: [expect.objectContaining({ param: 'scsi0' })] },
      }),
    );
  });

  it("moves a container's root file system and mount points to storages that hold container volumes", () => {
    const ct = {
      vmid: 200,
      kind: LXC,
      config: { hostname: 'ct1', rootfs: 'local:200/subvol-200-disk-0,size=8G', mp0: 'local:200/subvol-200-disk-1,mp=/srv,size=1G' },
    };
    expect(migratePlan(ct, 'pve2', STORAGES, storageMapping({}))).toEqual({
      copy: ['rootfs', 'mp0'],
      config: ct.config,
      storages: new Set(['local']),
    });
    expect(() => migratePlan(ct, 'pve2', STORAGES, storageMapping({ 'target-storage': 'fast' }))).toThrow(
      expect.objectContaining({
        message: "storage 'fast' does not hold container volumes (content 'rootdir')",
        details: { problems: [expect.objectContaining({ param: 'target-storage' })] },
      }),
    );
  });

  it('refuses a linked clone, whose base image stays behind', () => {
    expect(() =>
      migratePlan(
        vm(130, { scsi0: 'local:100/base-100-disk-0.qcow2/130/vm-130-disk-0.qcow2,size=1G' }),
        'pve2',
        STORAGES,
        storageMapping({}),
      ),
    ).toThrow(
      'VM 130 is a linked clone (scsi0: local:100/base-100-disk-0.qcow2/130/vm-130-disk-0.qcow2): migrating linked clones is not supported yet',
    );
  });
});

describe('linkedClonesOf', () => {
  it("finds the VMs whose disks are overlays of the template's images", () => {
    const guests: { vmid: number; config: Record<string, string> }[] = [
      { vmid: 100, config: { scsi0: 'local:100/base-100-disk-0.qcow2,size=1G' } },
      { vmid: 131, config: { scsi0: 'local:100/base-100-disk-0.qcow2/131/vm-131-disk-0.qcow2,size=1G' } },
      { vmid: 130, config: { name: 'x', scsi1: 'local:100/base-100-disk-0.qcow2/130/vm-130-disk-1.qcow2,size=1G' } },
      { vmid: 140, config: { scsi0: 'local:101/base-101-disk-0.qcow2/140/vm-140-disk-0.qcow2,size=1G' } },
    ];
    expect(linkedClonesOf(100, guests)).toEqual([130, 131]);
    expect(linkedClonesOf(131, guests)).toEqual([]);
  });
});
