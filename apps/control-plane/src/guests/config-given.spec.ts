import { SYSTEM_CALLER, type Principal } from '../http/principal.js';
import { givenConfig, givenKeys, mayGiveKeys } from './config-given.js';
import { LXC, QEMU } from './guest-kinds.js';

const badParam = (param: string, message: string) =>
  expect.objectContaining({ code: 'INVALID_PARAMETERS', details: { problems: [{ param, message }] } });
const alice: Principal = {
  userid: 'alice@pve',
  tokenid: null,
  method: 'ticket',
  subject: { kind: 'user', userid: 'alice@pve', groups: [] },
};
const rootToken: Principal = {
  userid: 'root@pam',
  tokenid: 'root@pam!ci',
  method: 'token',
  subject: { kind: 'token', userid: 'root@pam', groups: [], tokenid: 'root@pam!ci', privsep: false },
};

describe('givenKeys', () => {
  it("takes the kind's config keys from the parameters, and leaves the others", () => {
    const params = { node: 'pve1', vmid: 100, start: true, pool: 'web', memory: '1024', name: 'web1', hostname: 'ct1' };
    expect(givenKeys(QEMU, params)).toStrictEqual({ keys: { memory: '1024', name: 'web1' }, cdrom: undefined });
    expect(givenKeys(LXC, params)).toStrictEqual({ keys: { memory: '1024', hostname: 'ct1' }, cdrom: undefined });
  });

  it("keeps a VM's cdrom apart: it is no config key", () => {
    expect(givenKeys(QEMU, { node: 'pve1', vmid: 100, cdrom: 'local:iso/debian.iso' })).toStrictEqual({
      keys: {},
      cdrom: 'local:iso/debian.iso',
    });
  });
});

describe('givenConfig', () => {
  it('gives the keys as they are', () => {
    expect(givenConfig({ keys: { memory: '1024', cores: '2' } })).toStrictEqual({ memory: '1024', cores: '2' });
  });

  it('turns cdrom into ide2 with media=cdrom, `cdrom` and `none` into an empty drive', () => {
    expect(givenConfig({ keys: { memory: '1024' }, cdrom: 'local:iso/debian.iso' })).toStrictEqual({
      memory: '1024',
      ide2: 'local:iso/debian.iso,media=cdrom',
    });
    expect(givenConfig({ keys: {}, cdrom: 'cdrom' })).toStrictEqual({ ide2: 'none,media=cdrom' });
    expect(givenConfig({ keys: {}, cdrom: 'none' })).toStrictEqual({ ide2: 'none,media=cdrom' });
  });

  it('refuses cdrom beside ide2, and a cdrom that is no drive, naming cdrom', () => {
    expect(() => givenConfig({ keys: { ide2: 'none,media=cdrom' }, cdrom: 'local:iso/debian.iso' })).toThrow(
      badParam('cdrom', 'is an alias of ide2: give one of them'),
    );
    expect(() => givenConfig({ keys: {}, cdrom: 'nonsense!' })).toThrow(
      badParam('cdrom', "'nonsense!' must be <storage>:<size in GiB> or <storage>:<volume>"),
    );
  });
});

describe('mayGiveKeys', () => {
  it('lets root@pam set the keys that name what runs on the host', () => {
    expect(() => mayGiveKeys(['args', 'hookscript', 'memory'], SYSTEM_CALLER)).not.toThrow();
  });

  it("refuses them to anyone else, root@pam's API tokens too, naming the key", () => {
    for (const caller of [alice, rootToken]) {
      expect(() => mayGiveKeys(['memory', 'hookscript'], caller)).toThrow(
        expect.objectContaining({
          code: 'PERMISSION_DENIED',
          details: { reason: "permission denied - only root@pam may set 'hookscript'" },
        }),
      );
      expect(() => mayGiveKeys(['args'], caller)).toThrow(
        expect.objectContaining({ code: 'PERMISSION_DENIED', details: { reason: "permission denied - only root@pam may set 'args'" } }),
      );
    }
  });

  it('lets anyone give the other keys', () => {
    expect(() => mayGiveKeys(['memory', 'net0', 'scsi0', 'description'], alice)).not.toThrow();
  });
});
