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

/** The fields PVE sends as space-separated strings, the protocol as lists. */
const LISTS = new Set(['bridge_ports', 'bridge_vids', 'slaves']);
const PROTOCOL_NAME = Object.fromEntries(Object.entries(PVE_NAME).map(([field, param]) => [param, field]));

/** A create request's PVE parameters as the protocol's fields (lists from space-separated strings). */
export function newInterfaceFields(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(params).map(([param, value]) => [
      PROTOCOL_NAME[param] ?? param,
      LISTS.has(param) && typeof value === 'string' ? value.split(/[\s,;]+/).filter(Boolean) : value,
    ]),
  );
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
