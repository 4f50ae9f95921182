import type { NetworkInterface } from '@corral/protocol';
import { optionValue, type FileInterface, type IfaceStanza } from './interfaces-file.js';
import type { KernelLink } from './kernel-links.js';

/** PVE's names of network cards (`eth0`, `eno1`, `enp3s0`, InfiniBand `ib0`). */
const NIC_NAME = /^(?:eth[0-9]+|en[^:.]+|ib[^:.]+)$/;

/**
 * PVE's interface list: what the interfaces file defines (without the loopback, which PVE hides),
 * plus the network cards the kernel has that the file does not name; `active` and `exists` come
 * from the kernel. Sorted by name.
 */
export function describeInterfaces(file: ReadonlyMap<string, FileInterface>, links: readonly KernelLink[]): NetworkInterface[] {
  const kernel = new Map(links.map((link) => [link.name, link]));
  const fromFile = [...file.values()]
    .filter((iface) => iface.name !== 'lo' && iface.inet?.method !== 'loopback')
    .map((iface) => describeFileInterface(iface, kernel.get(iface.name)));
  const cardsOnly = links.filter((link) => link.physical && !file.has(link.name)).map(describeCard);
  return [...fromFile, ...cardsOnly].sort((a, b) => a.iface.localeCompare(b.iface));
}

function describeFileInterface(iface: FileInterface, link: KernelLink | undefined): NetworkInterface {
  const { name, inet, inet6 } = iface;
  const option = (key: string) => optionValue(inet, key) ?? optionValue(inet6, key);
  const list = (key: string) => {
    const value = option(key);
    return value === undefined ? undefined : value.split(/\s+/).filter((word) => word !== '' && word !== 'none');
  };
  const vlanAware = option('bridge-vlan-aware');
  const dotted = /^(.+)\.([0-9]+)$/.exec(name);
  const vlanId = option('vlan-id') ?? dotted?.[2] ?? /^vlan([0-9]+)$/.exec(name)?.[1];
  const comments = [...(inet?.comments ?? []), ...(inet6?.comments ?? [])];
  const mtu = Number(option('mtu'));
  return {
    iface: name,
    type: interfaceType(name, option, link),
    active: link?.up ?? false,
    exists: link !== undefined,
    autostart: iface.autostart,
    // PVE shows 'manual' for a family without a stanza.
    method: inet?.method ?? 'manual',
    method6: inet6?.method ?? 'manual',
    cidr: address(inet),
    gateway: optionValue(inet, 'gateway'),
    cidr6: address(inet6),
    gateway6: optionValue(inet6, 'gateway'),
    mtu: Number.isInteger(mtu) ? mtu : undefined,
    comments: comments.length === 0 ? undefined : comments.join('\n'),
    bridgePorts: list('bridge-ports'),
    bridgeVlanAware: vlanAware === undefined ? undefined : /^(?:yes|on|1|true)$/.test(vlanAware),
    bridgeVids: list('bridge-vids'),
    slaves: list('bond-slaves') ?? list('slaves'),
    bondMode: option('bond-mode'),
    bondPrimary: option('bond-primary'),
    bondXmitHashPolicy: option('bond-xmit-hash-policy'),
    vlanRawDevice: option('vlan-raw-device') ?? dotted?.[1],
    vlanId: vlanId === undefined ? undefined : Number(vlanId),
  };
}

function interfaceType(name: string, option: (key: string) => string | undefined, link: KernelLink | undefined): NetworkInterface['type'] {
  if (option('bridge-ports') !== undefined || link?.kind === 'bridge') return 'bridge';
  if (option('bond-slaves') !== undefined || option('slaves') !== undefined || option('bond-mode') !== undefined || link?.kind === 'bond')
    return 'bond';
  if (option('vlan-raw-device') !== undefined || /\.[0-9]+$|^vlan[0-9]+$/.test(name) || link?.kind === 'vlan') return 'vlan';
  if (name.includes(':')) return 'alias';
  if (link?.physical === true || NIC_NAME.test(name)) return 'eth';
  return 'unknown';
}

/** The stanza's first address with its prefix length; an old-style `netmask` line gives the length. */
function address(stanza: IfaceStanza | undefined): string | undefined {
  const value = optionValue(stanza, 'address');
  if (value === undefined || value.includes('/')) return value;
  const netmask = optionValue(stanza, 'netmask');
  if (netmask === undefined) return value;
  const prefix = /^[0-9]+$/.test(netmask)
    ? Number(netmask)
    : netmask.split('.').reduce((bits, octet) => bits + (Number(octet) >>> 0).toString(2).replace(/0/g, '').length, 0);
  return `${value}/${prefix}`;
}

function describeCard(link: KernelLink): NetworkInterface {
  return {
    iface: link.name,
    type: 'eth',
    active: link.up,
    exists: true,
    autostart: false,
    cidr: link.cidr,
    cidr6: link.cidr6,
    mtu: link.mtu,
  };
}
