import { LXC, QEMU } from '../guest-kinds.js';
import { createCommand } from './create-command.js';

describe('createCommand', () => {
  it("parts a VM's create into its guest, its config keys and its own options, unset flags false", () => {
    expect(
      createCommand(QEMU, {
        node: 'pve1',
        vmid: 100,
        memory: '1024',
        net0: 'virtio,bridge=vmbr0',
        cdrom: 'none',
        start: true,
        pool: 'web',
        'ha-managed': false,
      }),
    ).toStrictEqual({
      guest: { kind: QEMU, node: 'pve1', vmid: 100 },
      given: { keys: { memory: '1024', net0: 'virtio,bridge=vmbr0' }, cdrom: 'none' },
      pool: 'web',
      start: true,
      template: false,
      haManaged: false,
      liveRestore: false,
      importWorkingStorage: undefined,
      ostemplate: undefined,
      password: undefined,
      sshPublicKeys: undefined,
      ignoreUnpackErrors: false,
      storage: undefined,
      archive: undefined,
      restore: false,
      force: false,
      unique: false,
    });
  });

  it("takes a container's template, password, keys and restore flags", () => {
    const command = createCommand(LXC, {
      node: 'pve1',
      vmid: 200,
      hostname: 'ct',
      ostemplate: 'local:vztmpl/debian.tar.zst',
      password: 'secret',
      'ssh-public-keys': 'ssh-ed25519 AAAA root@x',
      'ignore-unpack-errors': true,
      storage: 'fast',
      force: true,
      unique: true,
    });
    expect(command).toMatchObject({
      given: { keys: { hostname: 'ct' } },
      ostemplate: 'local:vztmpl/debian.tar.zst',
      password: 'secret',
      sshPublicKeys: 'ssh-ed25519 AAAA root@x',
      ignoreUnpackErrors: true,
      storage: 'fast',
      force: true,
      unique: true,
      restore: false,
    });
  });

  it('takes blank public SSH keys as none', () => {
    expect(createCommand(LXC, { node: 'pve1', vmid: 200, 'ssh-public-keys': ' \n' }).sshPublicKeys).toBeUndefined();
  });
});
