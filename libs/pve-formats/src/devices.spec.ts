import { DISK, LXC_NIC, MOUNT, parseDisk, parseQemuNic, QEMU_NIC } from './devices.js';
import { formatSize, parseSize } from './size.js';
import { TAGS, ValueError } from './value-rules.js';

const refusal = (parse: () => unknown) => {
  try {
    parse();
  } catch (error) {
    if (error instanceof ValueError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('QEMU network cards (net[n])', () => {
  it.each([
    ['virtio,bridge=vmbr0', 'virtio,bridge=vmbr0'],
    ['virtio=bc:24:11:0a:1b:2c,bridge=vmbr0,firewall=1', 'virtio=BC:24:11:0A:1B:2C,bridge=vmbr0,firewall=1'],
    ['model=e1000,macaddr=BC:24:11:0A:1B:2C,tag=20', 'e1000=BC:24:11:0A:1B:2C,tag=20'],
    ['rtl8139', 'rtl8139'],
  ])('writes %s in PVE normal form as %s (Ansible reads the MAC after the model)', (given, stored) => {
    expect(QEMU_NIC.parse(given)).toBe(stored);
  });

  it('reads the model and MAC', () => {
    expect(parseQemuNic('virtio=BC:24:11:0A:1B:2C,bridge=vmbr0')).toMatchObject({ model: 'virtio', mac: 'BC:24:11:0A:1B:2C' });
    expect(parseQemuNic('virtio,bridge=vmbr0').mac).toBeUndefined();
  });

  it('skips blank items, as PVE does', () => {
    expect(parseQemuNic('virtio,,bridge=vmbr0,')).toEqual(parseQemuNic('virtio,bridge=vmbr0'));
  });

  it.each([
    ['bridge=vmbr0', 'must start with a model'],
    ['ne2k,bridge=vmbr0', 'must start with a model'],
    ['virtio,colour=blue', "has an unknown item 'colour'"],
    ['virtio,bridge=vmbr0,bridge=vmbr1', "gives 'bridge' more than once"],
    ['virtio=12:34,bridge=vmbr0', 'macaddr: must be a MAC address'],
    ['virtio,tag=5000', 'tag: must be an integer from 1 to 4094'],
    ['virtio,bridge=vmbr0;rm -rf', 'bridge: must be an interface name'],
    ['virtio,e1000', "item 'e1000' has no key"],
  ])('refuses %s', (given, message) => {
    expect(refusal(() => QEMU_NIC.parse(given))).toContain(message);
  });
});

describe('disks and volumes', () => {
  it('reads a new volume of <storage>:<GiB>, an existing one, none and cdrom', () => {
    expect(parseDisk('local:32,ssd=1').source).toEqual({ kind: 'new', storage: 'local', size: 32 * 1024 ** 3 });
    expect(parseDisk('local:0.5').source).toEqual({ kind: 'new', storage: 'local', size: 512 * 1024 ** 2 });
    expect(parseDisk('local:100/vm-100-disk-0.qcow2,size=32G').source).toEqual({
      kind: 'volume',
      storage: 'local',
      volname: '100/vm-100-disk-0.qcow2',
    });
    expect(parseDisk('none').source).toEqual({ kind: 'none' });
    expect(parseDisk('cdrom').options.get('media')).toBe('cdrom');
  });

  it('takes mount points whose names merely start with a dot', () => {
    expect(MOUNT.parse('local:8,mp=/srv/.cache')).toBe('local:8,mp=/srv/.cache');
  });

  it.each([
    [DISK, 'local', 'must be <storage>:<size in GiB>'],
    [DISK, ':32', 'must be <storage>:<size in GiB>'],
    [DISK, 'local:0.0000001', 'must be at least'],
    [DISK, 'local:32,cache=sometimes', 'cache: must be one of'],
    [DISK, 'local:../../etc/passwd', 'is not a volume id'],
    [DISK, 'local:32,size=big', 'size: must be a size'],
    [MOUNT, 'none', 'must be <storage>:<size> or a volume id'],
    [MOUNT, 'local:8,mp=relative', 'mp: must be an absolute path'],
    [MOUNT, 'local:8,mp=/../../etc', 'mp: must be an absolute path inside the container, without . or .. components'],
    [MOUNT, 'local:8,mp=/mnt/..', 'without . or .. components'],
    [MOUNT, 'local:8,mp=/mnt/./data', 'without . or .. components'],
  ])('refuses %s', (rule, given, message) => {
    expect(refusal(() => rule.parse(given))).toContain(message);
  });
});

describe('container network interfaces', () => {
  it('upper-cases the MAC and keeps the items', () => {
    expect(LXC_NIC.parse('name=eth0,bridge=vmbr0,ip=192.0.2.10/24,gw=192.0.2.1,hwaddr=bc:24:11:00:00:01')).toBe(
      'name=eth0,bridge=vmbr0,ip=192.0.2.10/24,gw=192.0.2.1,hwaddr=BC:24:11:00:00:01',
    );
  });

  it("takes PVE 9.1's host-managed=0, as bpg's provider sends it", () => {
    expect(LXC_NIC.parse('bridge=vmbr0,firewall=0,host-managed=0,ip=dhcp,name=eth0')).toBe(
      'bridge=vmbr0,firewall=0,host-managed=0,ip=dhcp,name=eth0',
    );
  });

  it.each([
    ['name=eth0,host-managed=1', 'host-managed: =1 (addresses configured by the host) is not built in Corral'],
    ['bridge=vmbr0', "must give the interface's name"],
    ['name=eth0,ip=192.0.2.300/24', 'ip: must be an IPv4 address with a prefix length'],
    ['name=eth0,ip=dhcp,gw=not-an-ip', 'gw: must be an IPv4 address'],
  ])('refuses %s', (given, message) => {
    expect(refusal(() => LXC_NIC.parse(given))).toContain(message);
  });
});

describe('sizes and tags', () => {
  it.each([
    ['32G', 32 * 1024 ** 3],
    ['4096', 4096],
    ['512M', 512 * 1024 ** 2],
    ['1.5T', 1.5 * 1024 ** 4],
    ['x', null],
  ])('parses %s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it('formats with the largest whole unit', () => {
    expect([formatSize(32 * 1024 ** 3), formatSize(64 * 1024 ** 2), formatSize(1536 * 1024 ** 2), formatSize(1000)]).toEqual([
      '32G',
      '64M',
      '1536M',
      '1000',
    ]);
  });

  it("stores tags as PVE does: sorted, de-duplicated, lower-cased, ';'-joined", () => {
    expect(TAGS.parse('web, DB;web prod')).toBe('db;prod;web');
    expect(refusal(() => TAGS.parse('ok,b@d'))).toContain("tag 'b@d'");
  });
});
