import type { GuestNic, GuestSpec } from '@corral/protocol';
import { DB1 } from '../../../../test-support/guest-specs.js';
import { lxcConfig, type LxcHostSetup } from './lxc-config.js';

const staticNic: GuestNic = { key: 'net0', mac: 'BC:24:11:3A:5F:02', bridge: 'vmbr0', name: 'eth0', ip: '192.0.2.20/24', gw: '192.0.2.1' };
const dhcpNic: GuestNic = { key: 'net3', mac: 'BC:24:11:3A:5F:03', bridge: 'vmbr1', ip: 'dhcp', gw: '192.0.2.1' };
const guest: GuestSpec = { ...DB1, cores: 2, nics: [staticNic, dhcpNic] };
const setup: LxcHostSetup = {
  rootfs: '/srv/root/var/lib/vz/images/200/subvol-200-disk-0',
  cgroup: 'legacy',
  bridges: new Set(['vmbr0', 'vmbr1']),
};

const lines = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('lxcConfig', () => {
  it('writes a privileged container with its name, root, mounts and cards', () => {
    expect(lines(lxcConfig(guest, setup))).toEqual([
      'lxc.include = /usr/share/lxc/config/common.conf',
      'lxc.uts.name = db1',
      'lxc.rootfs.path = dir:/srv/root/var/lib/vz/images/200/subvol-200-disk-0',
      'lxc.apparmor.profile = unconfined',
      'lxc.autodev = 1',
      'lxc.mount.auto = cgroup:mixed proc:mixed sys:mixed',
      'lxc.cgroup.memory.limit_in_bytes = 536870912',
      'lxc.cgroup.cpu.cfs_period_us = 100000',
      'lxc.cgroup.cpu.cfs_quota_us = 200000',
      'lxc.net.0.type = veth',
      'lxc.net.0.link = vmbr0',
      'lxc.net.0.hwaddr = BC:24:11:3A:5F:02',
      'lxc.net.0.name = eth0',
      'lxc.net.0.flags = up',
      'lxc.net.0.ipv4.address = 192.0.2.20/24',
      'lxc.net.0.ipv4.gateway = 192.0.2.1',
      'lxc.net.3.type = veth',
      'lxc.net.3.link = vmbr1',
      'lxc.net.3.hwaddr = BC:24:11:3A:5F:03',
      'lxc.net.3.name = eth3',
      'lxc.net.3.flags = up',
    ]);
  });

  it('limits memory and CPU with the cgroup v2 keys on a unified host', () => {
    const text = lxcConfig(guest, { ...setup, cgroup: 'unified' });
    expect(lines(text).filter((line) => line.includes('cgroup'))).toEqual([
      'lxc.mount.auto = cgroup:mixed proc:mixed sys:mixed',
      'lxc.cgroup2.memory.max = 536870912',
      'lxc.cgroup2.cpu.max = 200000 100000',
    ]);
  });

  it('leaves a card on a missing bridge without a link, and a card without a bridge on an unattached veth', () => {
    const text = lxcConfig({ ...guest, nics: [staticNic, { key: 'net1', mac: 'BC:24:11:3A:5F:04' }] }, { ...setup, bridges: new Set() });
    expect(lines(text).filter((line) => line.startsWith('lxc.net.'))).toEqual([
      'lxc.net.0.type = empty',
      'lxc.net.1.type = veth',
      'lxc.net.1.hwaddr = BC:24:11:3A:5F:04',
      'lxc.net.1.name = eth1',
      'lxc.net.1.flags = up',
    ]);
  });

  it('sets no halt signal, so LXC picks SIGPWR or systemd’s own', () => {
    expect(lxcConfig(guest, setup)).not.toContain('lxc.signal');
  });

  it('refuses a value that would start a second line', () => {
    expect(() => lxcConfig(guest, { ...setup, rootfs: '/srv/x\nlxc.hook.pre-start = /bin/evil' })).toThrow(/spans lines/);
  });
});
