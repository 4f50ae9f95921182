import { BUILT_IN_ROLES, type AccessConfig, type Privilege } from '@corral/acl';
import { SYSTEM_CALLER, type Principal } from '../http/principal.js';
import { changedConfig, mayChangeConfig, plannedChange } from './config-change.js';
import { configDigest } from '@corral/pve-formats';
import { configUpdate } from './config-update.js';
import { LXC, QEMU } from './guest-kinds.js';

const alice: Principal = {
  userid: 'alice@pve',
  tokenid: null,
  method: 'ticket',
  subject: { kind: 'user', userid: 'alice@pve', groups: [] },
};
/** Alice holds `privileges` on VM 100 (root@pam, as always, all of them). */
const holding = (...privileges: Privilege[]): AccessConfig => ({
  acl: [{ path: '/vms/100', type: 'user', ugid: 'alice@pve', roleid: 'Granted', propagate: true }],
  roles: new Map([...BUILT_IN_ROLES, ['Granted', { roleid: 'Granted', privileges: new Set(privileges), special: false }]]),
  memberPools: new Map(),
});
const badParam = (param: string, message: string) =>
  expect.objectContaining({ code: 'INVALID_PARAMETERS', details: { problems: [{ param, message }] } });
const denied = (privilege: Privilege) =>
  expect.objectContaining({
    code: 'PERMISSION_DENIED',
    details: { reason: `permission denied - Permission check failed (/vms/100, ${privilege})` },
  });
const update = (params: Record<string, unknown>, kind = QEMU) => configUpdate(kind, { node: 'pve1', vmid: 100, ...params });

const CONFIG = {
  memory: '1024',
  scsi0: 'local:100/vm-100-disk-0.qcow2,size=4G',
  ide2: 'local:iso/debian.iso,media=cdrom',
  unused0: 'local:100/vm-100-disk-1.qcow2',
  net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0',
};

describe('configUpdate', () => {
  it('splits each delete entry at commas, semicolons and spaces', () => {
    expect(update({ delete: ['cores,sockets', 'numa; tags  description'] }).deleted).toStrictEqual([
      'cores',
      'sockets',
      'numa',
      'tags',
      'description',
    ]);
    expect(update({}).deleted).toStrictEqual([]);
  });

  it('names the guest, and takes the config keys, the cdrom and the digest given', () => {
    const digest = 'a'.repeat(40);
    expect(update({ memory: '2048', cdrom: 'none', digest })).toStrictEqual({
      guest: { kind: QEMU, node: 'pve1', vmid: 100 },
      given: { keys: { memory: '2048' }, cdrom: 'none' },
      deleted: [],
      skiplock: false,
      unlock: false,
      digest,
    });
  });

  it("takes delete=lock as a removal of the lock (PVE's qm unlock), not of a config key, and skiplock", () => {
    expect(update({ delete: ['lock,tags'], skiplock: true })).toMatchObject({ deleted: ['tags'], skiplock: true, unlock: true });
  });
});

describe('plannedChange', () => {
  it('gives the keys to set and to delete', () => {
    expect(
      plannedChange(update({ memory: '2048', delete: ['tags'] }), CONFIG, holding('VM.Config.Memory', 'VM.Config.Options'), alice),
    ).toStrictEqual({ set: { memory: '2048' }, deleted: ['tags'] });
  });

  it('deletes an empty start order, once', () => {
    const all = holding('VM.Config.Options', 'VM.Config.Memory');
    expect(plannedChange(update({ startup: '', memory: '2048' }), CONFIG, all, alice)).toStrictEqual({
      set: { memory: '2048' },
      deleted: ['startup'],
    });
    expect(plannedChange(update({ startup: '', delete: ['startup'] }), CONFIG, all, alice)).toStrictEqual({
      set: {},
      deleted: ['startup'],
    });
  });

  it('asks for the privilege of each key on the guest', () => {
    const change = update({ memory: '2048', cores: '2' });
    expect(() => plannedChange(change, CONFIG, holding('VM.Config.Memory'), alice)).toThrow(denied('VM.Config.CPU'));
    expect(plannedChange(change, CONFIG, holding('VM.Config.Memory', 'VM.Config.CPU'), alice).set).toStrictEqual({
      memory: '2048',
      cores: '2',
    });
    expect(() => plannedChange(update({ net1: 'virtio,bridge=vmbr0' }), CONFIG, holding('VM.Config.Options'), alice)).toThrow(
      denied('VM.Config.Network'),
    );
    expect(() => plannedChange(update({ delete: ['tags'] }), CONFIG, holding('VM.Config.Memory'), alice)).toThrow(
      denied('VM.Config.Options'),
    );
    expect(() => plannedChange(update({ delete: ['swap'] }, LXC), {}, holding('VM.Config.Options'), alice)).toThrow(
      denied('VM.Config.Memory'),
    );
  });

  it("asks VM.Config.CDROM for a VM's CD-ROM drive, by the value given or else the one it has, and VM.Config.Disk for disks and unused volumes", () => {
    const cdrom = holding('VM.Config.CDROM');
    expect(plannedChange(update({ cdrom: 'none' }), CONFIG, cdrom, alice).set).toStrictEqual({ ide2: 'none,media=cdrom' });
    expect(plannedChange(update({ delete: ['ide2'] }), CONFIG, cdrom, alice).deleted).toStrictEqual(['ide2']);
    expect(() => plannedChange(update({ delete: ['scsi0'] }), CONFIG, cdrom, alice)).toThrow(denied('VM.Config.Disk'));
    expect(() => plannedChange(update({ delete: ['unused0'] }), CONFIG, cdrom, alice)).toThrow(denied('VM.Config.Disk'));
    expect(plannedChange(update({ delete: ['scsi0', 'unused0'] }), CONFIG, holding('VM.Config.Disk'), alice).deleted).toStrictEqual([
      'scsi0',
      'unused0',
    ]);
  });

  it("refuses a key that is not the kind's, naming delete", () => {
    expect(() => plannedChange(update({ delete: ['colour'] }), CONFIG, holding('VM.Config.Options'), SYSTEM_CALLER)).toThrow(
      badParam('delete', "'colour' is not a config key Corral knows"),
    );
    expect(() => plannedChange(update({ delete: ['hostname'] }), CONFIG, holding('VM.Config.Options'), SYSTEM_CALLER)).toThrow(
      badParam('delete', "'hostname' is not a config key Corral knows"),
    );
  });

  it('refuses a key both set and deleted', () => {
    expect(() => plannedChange(update({ memory: '2048', delete: ['memory'] }), CONFIG, holding('VM.Config.Memory'), alice)).toThrow(
      badParam('delete', "'memory' is both set and deleted"),
    );
  });

  it('refuses the keys only root@pam may set, deleted ones too, whatever the privileges', () => {
    const rootOnly = expect.objectContaining({
      code: 'PERMISSION_DENIED',
      details: { reason: "permission denied - only root@pam may set 'args'" },
    });
    expect(() => plannedChange(update({ args: '-no-reboot' }), CONFIG, holding('VM.Config.Options'), alice)).toThrow(rootOnly);
    expect(() => plannedChange(update({ delete: ['args'] }), CONFIG, holding('VM.Config.Options'), alice)).toThrow(rootOnly);
    expect(plannedChange(update({ args: '-no-reboot' }), CONFIG, holding(), SYSTEM_CALLER).set).toStrictEqual({ args: '-no-reboot' });
  });
});

describe('mayChangeConfig', () => {
  const row = { vmid: 100, config: CONFIG, lock: null };

  it('lets a change through without a digest, or with the digest of the config', () => {
    expect(() => mayChangeConfig(QEMU, row, undefined)).not.toThrow();
    expect(() => mayChangeConfig(QEMU, row, configDigest(CONFIG))).not.toThrow();
  });

  it('refuses a change based on a config that has changed since its digest', () => {
    const digest = configDigest({ ...CONFIG, memory: '512' });
    expect(() => mayChangeConfig(QEMU, row, digest)).toThrow(
      expect.objectContaining({
        code: 'CONFIG_CHANGED',
        message: `the configuration of VM 100 has changed since digest ${digest}: read it again`,
      }),
    );
  });

  it('refuses any change while the guest is locked', () => {
    expect(() => mayChangeConfig(LXC, { ...row, lock: 'backup' }, configDigest(CONFIG))).toThrow(
      expect.objectContaining({ code: 'GUEST_STATE', message: 'CT 100 is locked (backup)' }),
    );
  });
});

describe('changedConfig', () => {
  it('sets and deletes the keys, the rest as it was', () => {
    expect(changedConfig(QEMU, CONFIG, { set: { memory: '2048' }, deleted: ['unused0', 'ide2'] })).toStrictEqual({
      memory: '2048',
      scsi0: CONFIG.scsi0,
      net0: CONFIG.net0,
    });
  });

  it('keeps the MAC address of the card a card without one replaces, and gives a new card one', () => {
    const changed = changedConfig(QEMU, CONFIG, { set: { net0: 'e1000,bridge=vmbr1', net1: 'virtio,bridge=vmbr0' }, deleted: [] });
    expect(changed['net0']).toBe('e1000=BC:24:11:00:00:01,bridge=vmbr1');
    expect(changed['net1']).toMatch(/^virtio=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0$/);
  });
});
