import type { NetworkInterface } from '@corral/protocol';
import type { NetworkEntry } from './network.endpoints.js';

/** PVE's parameter names for the protocol's fields of a new interface. */
export const PVE_NAME: Readonly<Record<string, string>> = {
  bridgePorts: 'bridge_ports',
  bridgeVlanAware: 'bridge_vlan_aware',
  bridgeVids: 'bridge_vids',
  bondMode: 'bond_mode',
  bondPrimary: 'bond-primary',
  bondXmitHashPolicy: 'bond_xmit_hash_policy',
  vlanRawDevice: 'vlan-raw-device',
  vlanId: 'vlan-id',
};

const words = (text: string | undefined) => (text === undefined ? undefined : text.split(/[\s,;]+/).filter(Boolean));

/** A create request's PVE parameters as the protocol's fields (lists from space-separated strings). */
export function newInterfaceFields(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const text = (key: string) => params[key] as string | undefined;
  return {
    iface: params['iface'],
    type: params['type'],
    autostart: params['autostart'],
    cidr: params['cidr'],
    gateway: params['gateway'],
    cidr6: params['cidr6'],
    gateway6: params['gateway6'],
    mtu: params['mtu'],
    comments: params['comments'],
    bridgePorts: words(text('bridge_ports')),
    bridgeVlanAware: params['bridge_vlan_aware'],
    bridgeVids: words(text('bridge_vids')),
    slaves: words(text('slaves')),
    bondMode: params['bond_mode'],
    bondPrimary: params['bond-primary'],
    bondXmitHashPolicy: params['bond_xmit_hash_policy'],
    vlanRawDevice: params['vlan-raw-device'],
    vlanId: params['vlan-id'],
  };
}

/** An interface as PVE lists it. */
export function networkEntry(i: NetworkInterface): NetworkEntry {
  const bit = (value: boolean) => (value ? 1 : 0) as 0 | 1;
  const [address, prefix] = i.cidr?.split('/') ?? [];
  const entry: NetworkEntry = {
    iface: i.iface,
    type: i.type,
    active: bit(i.active),
    exists: bit(i.exists),
    autostart: bit(i.autostart),
    method: i.method,
    method6: i.method6,
    cidr: i.cidr,
    address,
    netmask: prefix === undefined ? undefined : netmask(Number(prefix)),
    gateway: i.gateway,
    cidr6: i.cidr6,
    gateway6: i.gateway6,
    mtu: i.mtu,
    comments: i.comments,
    bridge_ports: i.bridgePorts?.join(' '),
    bridge_vlan_aware: i.bridgeVlanAware === undefined ? undefined : bit(i.bridgeVlanAware),
    bridge_vids: i.bridgeVids?.join(' '),
    slaves: i.slaves?.join(' '),
    bond_mode: i.bondMode,
    'bond-primary': i.bondPrimary,
    bond_xmit_hash_policy: i.bondXmitHashPolicy,
    'vlan-raw-device': i.vlanRawDevice,
    'vlan-id': i.vlanId,
  };
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as NetworkEntry;
}

/** `24` → `255.255.255.0` */
function netmask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffff_ffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}
