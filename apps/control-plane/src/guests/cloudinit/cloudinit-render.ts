import { createHash } from 'node:crypto';
import { badParam } from '../../errors/resource-errors.js';
import { parseItems, parseQemuNic } from '@corral/pve-formats';

/*
 * The files of a VM's cloud-init drive, rendered from its config as PVE renders them: `user-data`
 * (PVE's cloud-config), `network-config` (NoCloud's network config version 1) and `meta-data`
 * (an `instance-id` that changes whenever the other two do) for `citype=nocloud`, the default;
 * the OpenStack layout (`openstack/latest/...`, its network config in Debian's interfaces format)
 * for `configdrive2`.
 */

export type CloudinitFormat = 'nocloud' | 'configdrive2';
export type CloudinitPart = 'user' | 'network' | 'meta' | 'vendor';

/** Where each part goes on the drive, by format, and the drive's volume label. */
export const DRIVE_LAYOUT: Record<
  CloudinitFormat,
  { readonly label: 'cidata' | 'config-2'; readonly paths: Record<CloudinitPart, string> }
> = {
  nocloud: { label: 'cidata', paths: { user: '/user-data', network: '/network-config', meta: '/meta-data', vendor: '/vendor-data' } },
  configdrive2: {
    label: 'config-2',
    paths: {
      user: '/openstack/latest/user_data',
      network: '/openstack/content/0000',
      meta: '/openstack/latest/meta_data.json',
      vendor: '/openstack/latest/vendor_data.json',
    },
  },
};

type Config = Readonly<Record<string, string>>;

/** The drive's format: `citype`, else `nocloud` (PVE picks configdrive2 for Windows guests, which Corral does not render). */
export function cloudinitFormat(config: Config): CloudinitFormat {
  const citype = config['citype'] ?? 'nocloud';
  if (citype !== 'nocloud' && citype !== 'configdrive2')
    throw badParam('citype', `${citype} drives are not supported by Corral yet: use nocloud or configdrive2`);
  return citype;
}

/** The generated parts (the vendor part is empty: only `cicustom` gives one). */
export function renderCloudinit(config: Config, vmid: number): Record<CloudinitPart, string> {
  const format = cloudinitFormat(config);
  const user = userData(config, vmid);
  const network = format === 'nocloud' ? nocloudNetwork(config) : configdrive2Network(config);
  const id = createHash('sha1')
    .update(user + network)
    .digest('hex');
  const meta =
    format === 'nocloud'
      ? `instance-id: ${id}\n`
      : `{\n     "uuid": "${id}",\n     "network_config": { "content_path": "/content/0000" }\n}\n`;
  return { user, network, meta, vendor: '' };
}

/** PVE's user-data: host name, user, password hash, SSH keys, and a package upgrade unless `ciupgrade=0`. */
function userData(config: Config, vmid: number): string {
  const name = config['name'] ?? `VM${vmid}`;
  const hostname = name.split('.')[0] ?? name;
  const fqdn = name.includes('.') ? name : config['searchdomain'] !== undefined ? `${name}.${config['searchdomain']}` : name;
  const user = config['ciuser'];
  const lines = ['#cloud-config', `hostname: ${hostname}`, 'manage_etc_hosts: true', `fqdn: ${fqdn}`];
  if (user !== undefined) lines.push(`user: ${user}`);
  if (user === 'root') lines.push('disable_root: False');
  if (config['cipassword'] !== undefined) lines.push(`password: ${config['cipassword']}`);
  const keys = sshKeys(config['sshkeys']);
  if (keys !== undefined) lines.push('ssh_authorized_keys:', ...keys.map((key) => `  - ${key}`));
  lines.push('chpasswd:', '  expire: False');
  if (user !== 'root') lines.push('users:', '  - default');
  if (config['ciupgrade'] !== '0') lines.push('package_upgrade: true');
  return `${lines.join('\n')}\n`;
}

/** `sshkeys` is URL-encoded (PVE's form): one key a line, blank lines dropped. */
function sshKeys(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    throw badParam('sshkeys', 'must be URL-encoded keys');
  }
  return decoded
    .split('\n')
    .map((key) => key.replace(/\r$/, ''))
    .filter((key) => /\S/.test(key));
}

interface Interface {
  readonly index: number;
  readonly mac: string;
  readonly ip?: string;
  readonly gw?: string;
  readonly ip6?: string;
  readonly gw6?: string;
}

/** The cards with an `ipconfig<n>`, in the order of their keys (as PVE sorts them: `net0`, `net1`, `net10`, `net2`). */
function interfaces(config: Config): Interface[] {
  return Object.keys(config)
    .filter((key) => /^net\d+$/.test(key))
    .sort()
    .flatMap((key) => {
      const index = Number(key.slice(3));
      const ipconfig = config[`ipconfig${index}`];
      if (ipconfig === undefined || ipconfig === '') return [];
      const items = parseItems(ipconfig, {});
      const mac = parseQemuNic(config[key] ?? '').mac;
      if (mac === undefined) throw badParam(key, `network interface '${key}' has no MAC address`);
      const [ip, gw, ip6, gw6] = ['ip', 'gw', 'ip6', 'gw6'].map((item) => items.get(item));
      return [
        {
          index,
          mac,
          ...(ip !== undefined ? { ip } : {}),
          ...(gw !== undefined ? { gw } : {}),
          ...(ip6 !== undefined ? { ip6 } : {}),
          ...(gw6 !== undefined ? { gw6 } : {}),
        },
      ];
    });
}

/** `nameserver` and `searchdomain`, split on spaces (PVE falls back to the host's resolv.conf; Corral writes none). */
function dns(config: Config): { nameservers: string[]; search: string[] } {
  const split = (value: string | undefined) => (value ?? '').split(/\s+/).filter((item) => item !== '');
  return { nameservers: split(config['nameserver']), search: split(config['searchdomain']) };
}

/** A dotted IPv4 netmask of a prefix length. */
function netmask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 255).join('.');
}

/** NoCloud's network config version 1, as PVE writes it. */
function nocloudNetwork(config: Config): string {
  const lines = ['version: 1', 'config:'];
  for (const nic of interfaces(config)) {
    lines.push('    - type: physical', `      name: eth${nic.index}`, `      mac_address: '${nic.mac.toLowerCase()}'`, '      subnets:');
    if (nic.ip === 'dhcp') lines.push('      - type: dhcp4');
    else if (nic.ip !== undefined) {
      const [address = '', prefix = '32'] = nic.ip.split('/');
      lines.push('      - type: static', `        address: '${address}'`, `        netmask: '${netmask(Number(prefix))}'`);
      if (nic.gw !== undefined) lines.push(`        gateway: '${nic.gw}'`);
    }
    if (nic.ip6 === 'dhcp') lines.push('      - type: dhcp6');
    else if (nic.ip6 === 'auto') lines.push('      - type: ipv6_slaac');
    else if (nic.ip6 !== undefined) {
      lines.push('      - type: static6', `        address: '${nic.ip6}'`);
      if (nic.gw6 !== undefined) lines.push(`        gateway: '${nic.gw6}'`);
    }
  }
  const { nameservers, search } = dns(config);
  if (nameservers.length > 0 || search.length > 0) {
    lines.push('    - type: nameserver');
    if (nameservers.length > 0) lines.push('      address:', ...nameservers.map((address) => `      - '${address}'`));
    if (search.length > 0) lines.push('      search:', ...search.map((domain) => `      - '${domain}'`));
  }
  return `${lines.join('\n')}\n`;
}

/** The OpenStack config drive's network config: Debian's interfaces format, as PVE writes it. */
function configdrive2Network(config: Config): string {
  const lines = ['auto lo', 'iface lo inet loopback', ''];
  const { nameservers, search } = dns(config);
  if (nameservers.length > 0) lines.push(`        dns_nameservers ${nameservers.join(' ')}`);
  if (search.length > 0) lines.push(`        dns_search ${search.join(' ')}`);
  for (const nic of interfaces(config)) {
    const id = `eth${nic.index}`;
    lines.push(`auto ${id}`);
    if (nic.ip === 'dhcp') lines.push(`iface ${id} inet dhcp`);
    else if (nic.ip !== undefined) {
      const [address = '', prefix = '32'] = nic.ip.split('/');
      lines.push(`iface ${id} inet static`, `        address ${address}`, `        netmask ${netmask(Number(prefix))}`);
      if (nic.gw !== undefined) lines.push(`        gateway ${nic.gw}`);
    }
    if (nic.ip6 === 'dhcp' || nic.ip6 === 'auto') lines.push(`iface ${id} inet6 ${nic.ip6}`);
    else if (nic.ip6 !== undefined) {
      const [address = '', prefix = '128'] = nic.ip6.split('/');
      lines.push(`iface ${id} inet6 static`, `        address ${address}`, `        netmask ${prefix}`);
      if (nic.gw6 !== undefined) lines.push(`        gateway ${nic.gw6}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
