import { z } from 'zod';
import { InterfaceName, Ipv4Cidr, Ipv6Cidr } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/*
 * Network interfaces as PVE manages them: changes go to a pending copy of the host's interfaces
 * file (`/etc/network/interfaces.new`) and take effect only when applied. Names follow PVE's
 * (`bridge_ports` is `bridgePorts`); lists are arrays, not PVE's space-separated strings.
 */

/** An interfaces-file comment: one line, since each becomes a `#` line of the file. */
const Comment = z
  .string()
  .max(1024)
  .regex(/^[^\r\n]*$/, 'must be one line');

/** A VLAN id (1-4094) or range `from-to`, as a VLAN-aware bridge's `bridge-vids`. */
const VlanIds = z
  .string()
  .regex(/^[0-9]{1,4}(?:-[0-9]{1,4})?$/, 'must be a VLAN id or a range such as 100-200')
  .refine((value) => {
    const [from = 0, to = from] = value.split('-').map(Number);
    return from >= 1 && to <= 4094 && from <= to;
  }, 'must be VLAN ids between 1 and 4094, the range ascending');

const BOND_MODES = ['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb'] as const;

/** Fields every interface definition may carry. */
const addressing = {
  iface: InterfaceName,
  /** Bring it up at boot (`auto <iface>`). */
  autostart: z.boolean().optional(),
  cidr: Ipv4Cidr.optional(),
  gateway: z.ipv4({ error: 'must be an IPv4 address' }).optional(),
  cidr6: Ipv6Cidr.optional(),
  gateway6: z.ipv6({ error: 'must be an IPv6 address' }).optional(),
  mtu: z.int().min(1280).max(65520).optional(),
  comments: Comment.optional(),
};

type Addressed = { cidr?: string | undefined; gateway?: string | undefined; cidr6?: string | undefined; gateway6?: string | undefined };
const gatewayNeedsAddress = (v: Addressed) => v.gateway === undefined || v.cidr !== undefined;
const gateway6NeedsAddress = (v: Addressed) => v.gateway6 === undefined || v.cidr6 !== undefined;

const Bridge = z
  .strictObject({
    type: z.literal('bridge'),
    ...addressing,
    /** The ports enslaved to the bridge; none gives an isolated bridge. */
    bridgePorts: z.array(InterfaceName).max(64).optional(),
    bridgeVlanAware: z.boolean().optional(),
    /** The VLANs a VLAN-aware bridge carries (default 2-4094). */
    bridgeVids: z.array(VlanIds).min(1).optional(),
  })
  .refine(gatewayNeedsAddress, { message: 'a gateway needs an address (cidr)', path: ['gateway'] })
  .refine(gateway6NeedsAddress, { message: 'a gateway needs an address (cidr6)', path: ['gateway6'] })
  .refine((v) => v.bridgeVids === undefined || v.bridgeVlanAware === true, {
    message: 'only a VLAN-aware bridge carries VLAN ids',
    path: ['bridgeVids'],
  });

const Bond = z
  .strictObject({
    type: z.literal('bond'),
    ...addressing,
    slaves: z.array(InterfaceName).min(1, 'a bond needs at least one slave').max(64),
    bondMode: z.enum(BOND_MODES),
    /** The preferred slave of an active-backup bond. */
    bondPrimary: InterfaceName.optional(),
    bondXmitHashPolicy: z.enum(['layer2', 'layer2+3', 'layer3+4']).optional(),
  })
  .refine(gatewayNeedsAddress, { message: 'a gateway needs an address (cidr)', path: ['gateway'] })
  .refine(gateway6NeedsAddress, { message: 'a gateway needs an address (cidr6)', path: ['gateway6'] })
  .refine((v) => v.bondPrimary === undefined || (v.bondMode === 'active-backup' && v.slaves.includes(v.bondPrimary)), {
    message: 'only an active-backup bond has a primary, and it must be one of its slaves',
    path: ['bondPrimary'],
  })
  .refine((v) => v.bondXmitHashPolicy === undefined || v.bondMode === 'balance-xor' || v.bondMode === '802.3ad', {
    message: 'only balance-xor and 802.3ad bonds have a transmit hash policy',
    path: ['bondXmitHashPolicy'],
  });

const Vlan = z
  .strictObject({
    type: z.literal('vlan'),
    ...addressing,
    /** The interface the VLAN rides on; implied by a name such as `eno1.100`. */
    vlanRawDevice: InterfaceName.optional(),
    /** The VLAN tag; implied by a name such as `eno1.100`. */
    vlanId: z.int().min(1).max(4094).optional(),
  })
  .refine(gatewayNeedsAddress, { message: 'a gateway needs an address (cidr)', path: ['gateway'] })
  .refine(gateway6NeedsAddress, { message: 'a gateway needs an address (cidr6)', path: ['gateway6'] })
  .refine((v) => /\.[0-9]+$/.test(v.iface) || (v.vlanRawDevice !== undefined && v.vlanId !== undefined), {
    message: 'a VLAN needs a name such as eno1.100, or vlanRawDevice and vlanId',
    path: ['iface'],
  });

/** A new bridge, bond or VLAN, written to the pending interfaces file. */
export const NewNetworkInterface = z.discriminatedUnion('type', [Bridge, Bond, Vlan]);
export type NewNetworkInterface = z.infer<typeof NewNetworkInterface>;

/** An interface as the (pending, if any) interfaces file and the kernel describe it. */
export const NetworkInterface = z.object({
  iface: z.string(),
  type: z.enum(['eth', 'bridge', 'bond', 'vlan', 'alias', 'unknown']),
  /** Up in the kernel now. */
  active: z.boolean(),
  /** Exists in the kernel (a pending interface does not yet). */
  exists: z.boolean(),
  autostart: z.boolean(),
  /** The file's `inet` method (`static`, `dhcp`, `manual`, `loopback`, `auto`). */
  method: z.string().optional(),
  method6: z.string().optional(),
  cidr: z.string().optional(),
  gateway: z.string().optional(),
  cidr6: z.string().optional(),
  gateway6: z.string().optional(),
  mtu: z.int().optional(),
  comments: z.string().optional(),
  bridgePorts: z.array(z.string()).optional(),
  bridgeVlanAware: z.boolean().optional(),
  bridgeVids: z.array(z.string()).optional(),
  slaves: z.array(z.string()).optional(),
  bondMode: z.string().optional(),
  bondPrimary: z.string().optional(),
  bondXmitHashPolicy: z.string().optional(),
  vlanRawDevice: z.string().optional(),
  vlanId: z.int().optional(),
});
export type NetworkInterface = z.infer<typeof NetworkInterface>;

export const nodeNetworkList = {
  description: "The host's interfaces, as the pending interfaces file has them when there is one, with the kernel's state.",
  params: z.strictObject({}),
  result: z.object({
    interfaces: z.array(NetworkInterface),
    /** A unified diff from the current to the pending interfaces file; absent when nothing is pending (PVE's `changes`). */
    changes: z.string().optional(),
  }),
} satisfies CommandDefinition;

export const nodeNetworkCreate = {
  description: 'Add a bridge, bond or VLAN to the pending interfaces file. Fails when the name is taken.',
  params: NewNetworkInterface,
  result: z.null(),
} satisfies CommandDefinition;

export const nodeNetworkDelete = {
  description: 'Remove an interface from the pending interfaces file. Fails when the file has no such interface.',
  params: z.strictObject({ iface: InterfaceName }),
  result: z.null(),
} satisfies CommandDefinition;

export const nodeNetworkApply = {
  description: 'Make the pending interfaces file the current one and reload the network (ifreload -a), streaming its output.',
  params: z.strictObject({}),
  result: z.null(),
} satisfies CommandDefinition;
