import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../http/params.js';
import { MODIFY_NODE, NODE } from '../nodes/nodes.endpoints.js';

const bit = z.union([z.literal(0), z.literal(1)]);

/** An interface as PVE lists it: its names, lists as space-separated strings, flags as 0/1. */
export const NetworkEntry = z.object({
  iface: z.string(),
  type: z.string(),
  active: bit,
  exists: bit,
  autostart: bit,
  method: z.string().optional(),
  method6: z.string().optional(),
  cidr: z.string().optional(),
  address: z.string().optional(),
  netmask: z.string().optional(),
  gateway: z.string().optional(),
  cidr6: z.string().optional(),
  gateway6: z.string().optional(),
  mtu: z.number().int().optional(),
  comments: z.string().optional(),
  bridge_ports: z.string().optional(),
  bridge_vlan_aware: bit.optional(),
  bridge_vids: z.string().optional(),
  slaves: z.string().optional(),
  bond_mode: z.string().optional(),
  'bond-primary': z.string().optional(),
  bond_xmit_hash_policy: z.string().optional(),
  'vlan-raw-device': z.string().optional(),
  'vlan-id': z.number().int().optional(),
});
export type NetworkEntry = z.infer<typeof NetworkEntry>;

const IFACE = { iface: stringParam({ description: 'The interface name.', maxLength: 64 }) };
const LIST_TYPES = ['bridge', 'bond', 'eth', 'alias', 'vlan', 'any_bridge'] as const;

export const NETWORK_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/nodes/{node}/network',
    summary: "The host's interfaces, as the pending interfaces file has them when changes wait to be applied",
    parameters: z.object({
      ...NODE,
      type: z.enum(LIST_TYPES).optional().meta({ description: 'Only interfaces of this type (`any_bridge`: bridges).' }),
    }),
    returns: z.array(NetworkEntry),
    permission: { kind: 'authenticated' },
  }),
  get: endpoint({
    method: 'GET',
    path: '/nodes/{node}/network/{iface}',
    summary: 'One interface',
    parameters: z.object({ ...NODE, ...IFACE }),
    returns: NetworkEntry,
    permission: { kind: 'privileges', path: '/nodes/{node}', privileges: ['Sys.Audit'] },
  }),
  create: endpoint({
    method: 'POST',
    path: '/nodes/{node}/network',
    summary: 'Add a bridge, bond or VLAN to the pending interfaces file; `PUT` applies it',
    parameters: z.object({
      ...NODE,
      ...IFACE,
      type: stringParam({ description: '`bridge`, `bond` or `vlan`.', maxLength: 16 }),
      autostart: booleanParam({ description: 'Bring it up at boot.' }).optional(),
      cidr: stringParam({ description: 'IPv4 address with prefix length.', maxLength: 64 }).optional(),
      gateway: stringParam({ description: 'IPv4 gateway.', maxLength: 64 }).optional(),
      cidr6: stringParam({ description: 'IPv6 address with prefix length.', maxLength: 64 }).optional(),
      gateway6: stringParam({ description: 'IPv6 gateway.', maxLength: 64 }).optional(),
      mtu: integerParam({ description: 'MTU.', min: 1280, max: 65520 }).optional(),
      comments: stringParam({ description: 'A comment (one line).', maxLength: 1024 }).optional(),
      bridge_ports: stringParam({ description: 'Ports of a bridge, separated by spaces.', maxLength: 4096 }).optional(),
      bridge_vlan_aware: booleanParam({ description: 'A VLAN-aware bridge.' }).optional(),
      bridge_vids: stringParam({
        description: 'VLAN ids or ranges a VLAN-aware bridge carries, separated by spaces.',
        maxLength: 4096,
      }).optional(),
      slaves: stringParam({ description: 'Slaves of a bond, separated by spaces.', maxLength: 4096 }).optional(),
      bond_mode: stringParam({ description: 'The bond mode.', maxLength: 32 }).optional(),
      'bond-primary': stringParam({ description: 'The primary slave of an active-backup bond.', maxLength: 64 }).optional(),
      bond_xmit_hash_policy: stringParam({
        description: 'The transmit hash policy of a balance-xor or 802.3ad bond.',
        maxLength: 16,
      }).optional(),
      'vlan-raw-device': stringParam({ description: 'The interface a VLAN rides on.', maxLength: 64 }).optional(),
      'vlan-id': integerParam({ description: 'The VLAN tag.', min: 1, max: 4094 }).optional(),
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/nodes/{node}/network/{iface}',
    summary: 'Remove an interface from the pending interfaces file; `PUT` applies it',
    parameters: z.object({ ...NODE, ...IFACE }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  apply: endpoint({
    method: 'PUT',
    path: '/nodes/{node}/network',
    summary: 'Apply the pending interfaces file (ifreload -a) as a task; returns its UPID',
    parameters: z.object(NODE),
    returns: z.string(),
    permission: MODIFY_NODE,
  }),
};
