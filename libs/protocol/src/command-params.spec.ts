import { parseCommandRequest } from './command-requests.js';

// The agent acts on these parameters (writes resolv.conf and the interfaces file, runs apt, sgdisk
// and nft), so each schema must refuse what could reach the host as something else.
const check = (command: string, params: Record<string, unknown>) => {
  const parsed = parseCommandRequest({ command, params });
  return parsed.ok ? 'accepted' : parsed.message;
};

describe('node.dns.set', () => {
  it.each([[{ search: ['example.com'], servers: ['192.0.2.53', '2001:db8::53', '192.0.2.54'] }], [{ search: [], servers: [] }]])(
    'accepts %j',
    (params) => {
      expect(check('node.dns.set', params)).toBe('accepted');
    },
  );

  it.each([
    [{ search: [], servers: ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'] }, 'params.servers: at most three name servers'],
    [{ search: [], servers: ['192.0.2.256'] }, 'params.servers[0]: must be an IPv4 or IPv6 address'],
    [{ search: [], servers: ['dns.example.com'] }, 'params.servers[0]: must be an IPv4 or IPv6 address'],
    [{ search: ['example.com\nnameserver 203.0.113.66'], servers: [] }, 'params.search[0]: must be a domain name'],
    [{ search: ['example.com lab.example.com'], servers: [] }, 'params.search[0]: must be a domain name'],
    [{ search: ['-bad.example.com'], servers: [] }, 'params.search[0]: must be a domain name'],
    [{ search: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], servers: [] }, 'params.search: at most six search domains'],
    [{ search: 'example.com', servers: [] }, 'params.search: Invalid input: expected array, received string'],
  ])('refuses %j', (params, message) => {
    expect(check('node.dns.set', params)).toContain(`node.dns.set: ${message}`);
  });
});

describe('node.apt.changelog', () => {
  it.each([[{ name: 'openssl' }], [{ name: 'libstdc++6', version: '14.2.0-19' }], [{ name: 'proxmox-ve', version: '1:9.1.2+deb13' }]])(
    'accepts %j',
    (params) => {
      expect(check('node.apt.changelog', params)).toBe('accepted');
    },
  );

  it.each([
    [{ name: '-oAPT::Update::Pre-Invoke::=touch' }, 'params.name: must be a Debian package name'],
    [{ name: 'OpenSSL' }, 'params.name: must be a Debian package name'],
    [{ name: 'x' }, 'params.name: must be a Debian package name'],
    [{ name: 'openssl', version: 'latest' }, 'params.version: must be a Debian package version'],
    [{ name: 'openssl', version: '3.5 1' }, 'params.version: must be a Debian package version'],
  ])('refuses %j', (params, message) => {
    expect(check('node.apt.changelog', params)).toBe(`node.apt.changelog: ${message}`);
  });
});

describe('node.disks.init-gpt', () => {
  it.each([['/dev/sdb'], ['/dev/nvme1n1'], ['/dev/disk/by-id/wwn-0x5000c500a1b2c3d4'], ['/dev/disk/by-path/pci-0000:00:1f.2-ata-1']])(
    'accepts %s',
    (disk) => {
      expect(check('node.disks.init-gpt', { disk })).toBe('accepted');
    },
  );

  it.each([['/dev/../etc/shadow'], ['/dev/./sdb'], ['/etc/passwd'], ['sdb'], ['/dev/'], ['/dev/sdb '], ['/dev//sdb'], ['/dev/sdb;reboot']])(
    'refuses %j',
    (disk) => {
      expect(check('node.disks.init-gpt', { disk })).toBe('node.disks.init-gpt: params.disk: must be a device path under /dev');
    },
  );

  it('refuses a disk GUID that is not one', () => {
    expect(check('node.disks.init-gpt', { disk: '/dev/sdb', uuid: 'not-a-guid' })).toMatch(
      /^node\.disks\.init-gpt: params\.uuid: must be a GUID/,
    );
  });
});

describe('node.network.create', () => {
  const bridge = { type: 'bridge', iface: 'vmbr1' };
  const bond = { type: 'bond', iface: 'bond0', slaves: ['eno1', 'eno2'], bondMode: 'active-backup' };

  it.each([
    [bridge],
    [
      {
        ...bridge,
        bridgePorts: ['eno1'],
        bridgeVlanAware: true,
        bridgeVids: ['2-4094'],
        cidr: '192.0.2.10/24',
        gateway: '192.0.2.1',
        cidr6: '2001:db8::10/64',
        gateway6: '2001:db8::1',
      },
    ],
    [{ ...bond, bondPrimary: 'eno2' }],
    [{ type: 'bond', iface: 'bond1', slaves: ['eno3'], bondMode: '802.3ad', bondXmitHashPolicy: 'layer3+4' }],
    [{ type: 'vlan', iface: 'eno1.100' }],
    [{ type: 'vlan', iface: 'vlan100', vlanRawDevice: 'eno1', vlanId: 100, mtu: 1500 }],
  ])('accepts %j', (params) => {
    expect(check('node.network.create', params)).toBe('accepted');
  });

  it.each([
    [{ ...bridge, iface: 'vmbr-with-a-long-name' }, 'params.iface: must be at most 15 characters (the kernel limit)'],
    [{ ...bridge, iface: 'vmbr/1' }, 'params.iface: must be an interface name'],
    [{ ...bridge, iface: '1vmbr' }, 'params.iface: must be an interface name'],
    [{ ...bridge, bridgePorts: ['eno1 eno2'] }, 'params.bridgePorts[0]: must be an interface name'],
    [{ ...bridge, gateway: '192.0.2.1' }, 'params.gateway: a gateway needs an address (cidr)'],
    [{ ...bridge, cidr: '192.0.2.10' }, 'params.cidr: must be an IPv4 address with a prefix length'],
    [{ ...bridge, cidr: '192.0.2.10/24', gateway: '2001:db8::1' }, 'params.gateway: must be an IPv4 address'],
    [{ ...bridge, bridgeVids: ['100'] }, 'params.bridgeVids: only a VLAN-aware bridge carries VLAN ids'],
    [{ ...bridge, bridgeVlanAware: true, bridgeVids: ['200-100'] }, 'params.bridgeVids[0]: must be VLAN ids between 1 and 4094'],
    [{ ...bridge, comments: 'one\nauto eth9' }, 'params.comments: must be one line'],
    [{ ...bridge, mtu: 100 }, 'params.mtu: '],
    [{ ...bond, slaves: [] }, 'params.slaves: a bond needs at least one slave'],
    [{ ...bond, bondPrimary: 'eno9' }, 'params.bondPrimary: only an active-backup bond has a primary, and it must be one of its slaves'],
    [
      { ...bond, bondXmitHashPolicy: 'layer2' },
      'params.bondXmitHashPolicy: only balance-xor and 802.3ad bonds have a transmit hash policy',
    ],
    [{ ...bond, bondMode: 'balance-slb' }, 'params.bondMode: '],
    [{ type: 'vlan', iface: 'vlan100' }, 'params.iface: a VLAN needs a name such as eno1.100, or vlanRawDevice and vlanId'],
    [{ type: 'vlan', iface: 'vlan100', vlanRawDevice: 'eno1', vlanId: 4095 }, 'params.vlanId: '],
    [{ type: 'OVSBridge', iface: 'vmbr2' }, 'params.type: '],
  ])('refuses %j', (params, message) => {
    expect(check('node.network.create', params)).toContain(`node.network.create: ${message}`);
  });
});

describe('node.firewall.apply', () => {
  const ruleset = {
    enabled: true,
    policyIn: 'DROP',
    policyOut: 'ACCEPT',
    aliases: [{ name: 'admin-net', cidr: '198.51.100.0/24' }],
    rules: [],
  };
  const rule = { type: 'in', action: 'ACCEPT', enabled: true };
  const withRule = (extra: Record<string, unknown>) => ({ ...ruleset, rules: [{ ...rule, ...extra }] });

  it.each([
    [ruleset],
    [withRule({ source: ['ADMIN-NET', '203.0.113.7', '2001:db8::/32'], proto: 'tcp', dport: ['22', '8000:8010', 'https'] })],
    [withRule({ proto: 'icmpv6', icmpType: 'echo-request', iface: 'vmbr0', log: 'info', comment: 'ping' })],
    [withRule({ proto: '17', sport: ['53'] })],
  ])('accepts %j', (params) => {
    expect(check('node.firewall.apply', params)).toBe('accepted');
  });

  it.each([
    [withRule({ source: ['office'] }), "params.rules[0].source[0]: unknown alias 'office'"],
    [
      { ...ruleset, aliases: [...ruleset.aliases, { name: 'Admin-Net', cidr: '192.0.2.0/24' }] },
      "params.aliases[1].name: alias 'Admin-Net' is defined twice",
    ],
    [withRule({ source: ['192.0.2.0/33'] }), 'params.rules[0].source[0]: must be an IP address, a CIDR or an alias name'],
    [withRule({ dport: ['22'] }), 'params.rules[0].proto: ports need a proto that has ports'],
    [withRule({ proto: 'icmp', dport: ['22'] }), 'params.rules[0].proto: ports need a proto that has ports'],
    [withRule({ proto: 'tcp', dport: ['70000'] }), 'params.rules[0].dport[0]: must be ports between 1 and 65535'],
    [withRule({ proto: 'tcp', dport: ['90:80'] }), 'params.rules[0].dport[0]: must be ports between 1 and 65535, the range ascending'],
    [withRule({ proto: 'tcp', dport: ['22,80'] }), 'params.rules[0].dport[0]: must be a port, a range'],
    [withRule({ proto: 'tcp', icmpType: 'echo-request' }), 'params.rules[0].icmpType: an ICMP type needs proto icmp or icmpv6'],
    [withRule({ proto: '300' }), 'params.rules[0].proto: must be a protocol number up to 255'],
    [withRule({ action: 'accept' }), 'params.rules[0].action: '],
    [withRule({ comment: 'x\ntable inet evil {}' }), 'params.rules[0].comment: must be one line'],
    [{ ...ruleset, policyIn: 'IGNORE' }, 'params.policyIn: '],
  ])('refuses %j', (params, message) => {
    expect(check('node.firewall.apply', params)).toContain(`node.firewall.apply: ${message}`);
  });
});

describe('storage.volume.delete, storage.upload and storage.download', () => {
  const location = { path: '/var/lib/vz', mountpoint: false };

  it.each([
    ['template/iso/debian-13.iso'],
    ['template/cache/busybox.tar.gz'],
    ['dump/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst'],
    ['snippets/user.yaml'],
    ['import/debian-13.qcow2'],
    ['images/100/vm-100-disk-0.qcow2'],
    ['images/200/subvol-200-disk-1'],
  ])('deletes %s', (file) => {
    expect(check('storage.volume.delete', { ...location, file })).toBe('accepted');
  });

  it.each([
    ['template/iso/../../../etc/passwd'],
    ['template/iso/.debian.iso.corral-upload-0a1b'],
    ['template/iso/sub/dir.iso'],
    ['/etc/passwd'],
    ['etc/passwd'],
    ['images/100/vm-101-disk-0.qcow2'],
    ['images/100/../../etc'],
    ['images/100'],
  ])('refuses to delete %s', (file) => {
    expect(check('storage.volume.delete', { ...location, file })).toContain(
      'storage.volume.delete: params.file: must be a volume file below the storage path',
    );
  });

  it('uploads only into the ISO and template folders, with a lower-case hex digest', () => {
    const upload = { stream: 'u-1', ...location, file: 'template/iso/x.iso' };
    expect(check('storage.upload', { ...upload, checksum: { algorithm: 'sha256', digest: 'ab'.repeat(32) } })).toBe('accepted');
    expect(check('storage.upload', { ...upload, file: 'dump/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst' })).toContain(
      'params.file: must be template/iso/<file> or template/cache/<file>',
    );
    expect(check('storage.upload', { ...upload, checksum: { algorithm: 'sha256', digest: 'AB'.repeat(32) } })).toContain(
      'params.checksum.digest: must be a digest in lower-case hex',
    );
    expect(check('storage.upload', { ...upload, checksum: { algorithm: 'crc32', digest: 'ab'.repeat(16) } })).toContain(
      'params.checksum.algorithm',
    );
    expect(check('storage.upload', { ...upload, path: '/var/lib/../../etc' })).toContain(
      'params.path: must be an absolute path without . or .. segments',
    );
  });

  it('downloads only http(s) URLs into the ISO, template and import folders, reaching only the networks given', () => {
    const download = {
      ...location,
      file: 'import/disk.qcow2',
      url: 'https://example.com/disk.qcow2',
      verifyCertificates: true,
      allowNetworks: ['192.168.10.0/24', 'fd00::/8'],
      maxBytes: 1024,
    };
    expect(check('storage.download', download)).toBe('accepted');
    expect(check('storage.download', { ...download, file: 'import/../../etc/passwd' })).toContain(
      'params.file: must be template/iso/<file>, template/cache/<file> or import/<file>',
    );
    expect(check('storage.download', { ...download, file: 'snippets/user.yaml' })).toContain(
      'params.file: must be template/iso/<file>, template/cache/<file> or import/<file>',
    );
    expect(check('storage.download', { ...download, url: 'file:///etc/passwd' })).toContain('params.url: must be an http or https URL');
    expect(check('storage.download', { ...download, allowNetworks: ['everything'] })).toContain('params.allowNetworks[0]');
    expect(check('storage.download', { ...download, decompress: 'zst' })).toContain('params.decompress');
    expect(check('node.url.metadata', { url: 'ftp://example.com/x.iso', verifyCertificates: false, allowNetworks: [] })).toContain(
      'params.url: must be an http or https URL',
    );
  });
});
