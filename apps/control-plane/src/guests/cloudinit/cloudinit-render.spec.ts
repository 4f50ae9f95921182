import { renderCloudinit } from './cloudinit-render.js';

const HASH = '$6$salt$' + 'a'.repeat(86);
const KEYS = encodeURIComponent('ssh-ed25519 AAAAC3Nza one@host\nssh-rsa AAAAB3Nza two@host\n');

describe('cloud-init rendering', () => {
  it('writes user-data with the user, the password hash, the keys and the package upgrade', () => {
    const { user } = renderCloudinit({ name: 'web1', ciuser: 'ops', cipassword: HASH, sshkeys: KEYS }, 100);
    expect(user).toBe(
      [
        '#cloud-config',
        'hostname: web1',
        'manage_etc_hosts: true',
        'fqdn: web1',
        'user: ops',
        `password: ${HASH}`,
        'ssh_authorized_keys:',
        '  - ssh-ed25519 AAAAC3Nza one@host',
        '  - ssh-rsa AAAAB3Nza two@host',
        'chpasswd:',
        '  expire: False',
        'users:',
        '  - default',
        'package_upgrade: true',
        '',
      ].join('\n'),
    );
  });

  it('lets root log in, leaves out the upgrade with ciupgrade=0, and names the VM by id without a name', () => {
    const { user } = renderCloudinit({ ciuser: 'root', ciupgrade: '0', searchdomain: 'example.org' }, 123);
    expect(user).toBe(
      [
        '#cloud-config',
        'hostname: VM123',
        'manage_etc_hosts: true',
        'fqdn: VM123.example.org',
        'user: root',
        'disable_root: False',
        'chpasswd:',
        '  expire: False',
        '',
      ].join('\n'),
    );
  });

  it('writes NoCloud network config v1: static IPv4 and IPv6 with gateways, DHCP, SLAAC, name servers and search domains', () => {
    const { network } = renderCloudinit(
      {
        net0: 'virtio=BC:24:11:0A:1B:2C,bridge=vmbr0',
        ipconfig0: 'ip=192.0.2.10/24,gw=192.0.2.1,ip6=2001:db8::10/64,gw6=2001:db8::1',
        net1: 'virtio=BC:24:11:0A:1B:2D,bridge=vmbr1',
        ipconfig1: 'ip=dhcp,ip6=auto',
        net2: 'virtio=BC:24:11:0A:1B:2E,bridge=vmbr1',
        nameserver: '192.0.2.53 2001:db8::53',
        searchdomain: 'example.org',
      },
      100,
    );
    expect(network).toBe(
      [
        'version: 1',
        'config:',
        '    - type: physical',
        '      name: eth0',
        "      mac_address: 'bc:24:11:0a:1b:2c'",
        '      subnets:',
        '      - type: static',
        "        address: '192.0.2.10'",
        "        netmask: '255.255.255.0'",
        "        gateway: '192.0.2.1'",
        '      - type: static6',
        "        address: '2001:db8::10/64'",
        "        gateway: '2001:db8::1'",
        '    - type: physical',
        '      name: eth1',
        "      mac_address: 'bc:24:11:0a:1b:2d'",
        '      subnets:',
        '      - type: dhcp4',
        '      - type: ipv6_slaac',
        '    - type: nameserver',
        '      address:',
        "      - '192.0.2.53'",
        "      - '2001:db8::53'",
        '      search:',
        "      - 'example.org'",
        '',
      ].join('\n'),
    );
  });

  it('gives meta-data an instance id that follows the user and network parts', () => {
    const one = renderCloudinit({ ciuser: 'ops' }, 100).meta;
    expect(one).toMatch(/^instance-id: [0-9a-f]{40}\n$/);
    expect(renderCloudinit({ ciuser: 'ops' }, 100).meta).toBe(one);
    expect(renderCloudinit({ ciuser: 'dev' }, 100).meta).not.toBe(one);
  });

  it('writes the OpenStack layout for configdrive2: interfaces-format network and JSON meta data', () => {
    const { network, meta } = renderCloudinit(
      { citype: 'configdrive2', net0: 'virtio=BC:24:11:0A:1B:2C', ipconfig0: 'ip=10.0.0.5/8,gw=10.0.0.1', nameserver: '10.0.0.53' },
      100,
    );
    expect(network).toBe(
      [
        'auto lo',
        'iface lo inet loopback',
        '',
        '        dns_nameservers 10.0.0.53',
        'auto eth0',
        'iface eth0 inet static',
        '        address 10.0.0.5',
        '        netmask 255.0.0.0',
        '        gateway 10.0.0.1',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(meta)).toStrictEqual({
      uuid: expect.stringMatching(/^[0-9a-f]{40}$/),
      network_config: { content_path: '/content/0000' },
    });
  });

  it('refuses the opennebula format, naming citype', () => {
    expect(() => renderCloudinit({ citype: 'opennebula' }, 100)).toThrow('opennebula drives are not supported by Corral yet');
  });
});
