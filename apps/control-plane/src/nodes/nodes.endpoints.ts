import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { nodeParam } from './node-params.js';

/** PVE's `Sys.Audit` on `/nodes/{node}`: reading a node's host state. */
export const AUDIT_NODE: Check = { kind: 'privileges', path: '/nodes/{node}', privileges: ['Sys.Audit'] };
/** PVE's `Sys.Modify` on `/nodes/{node}`: changing the host. */
export const MODIFY_NODE: Check = { kind: 'privileges', path: '/nodes/{node}', privileges: ['Sys.Modify'] };

export const NODE = { node: nodeParam() };

export const NodeListEntry = z.object({
  node: z.string(),
  id: z.string().meta({ description: '`node/<name>`' }),
  type: z.literal('node'),
  status: z.enum(['online', 'offline', 'unknown']),
  cpu: z.number().optional().meta({ description: 'CPU load, a fraction of all CPUs.' }),
  maxcpu: z.number().int().optional(),
  mem: z.number().int().optional().meta({ description: 'Memory in use, bytes.' }),
  maxmem: z.number().int().optional().meta({ description: 'Memory total, bytes.' }),
  memtotal: z.number().int().optional().meta({ description: 'Memory total, bytes (the same as `maxmem`).' }),
  disk: z.number().int().optional(),
  maxdisk: z.number().int().optional(),
  uptime: z.number().int().optional(),
  level: z.string().meta({ description: "Subscription level: always '' (Corral has none)." }),
  ssl_fingerprint: z
    .string()
    .meta({ description: "The SHA-256 fingerprint of the certificate the node's agent pins: the control plane's." }),
});
export type NodeListEntry = z.infer<typeof NodeListEntry>;

const Numbers = <K extends string>(keys: readonly K[]) =>
  z.object(Object.fromEntries(keys.map((key) => [key, z.number().int()])) as Record<K, z.ZodNumber>);

export const NodeStatusResult = z.object({
  cpu: z.number(),
  wait: z.number().optional().meta({ description: 'The share of CPU time spent waiting for I/O since the previous read.' }),
  idle: z.literal(0).meta({ description: 'Always 0, as PVE sends it.' }),
  loadavg: z.array(z.string()).meta({ description: '1, 5 and 15 minute load averages, as strings (PVE).' }),
  uptime: z.number().int(),
  memory: Numbers(['total', 'used', 'free', 'available']),
  swap: Numbers(['total', 'used', 'free']).optional(),
  ksm: z.object({ shared: z.number().int() }).optional().meta({ description: 'Bytes that kernel same-page merging shares.' }),
  rootfs: Numbers(['total', 'used', 'free', 'avail']),
  cpuinfo: z.object({
    model: z.string(),
    sockets: z.number().int(),
    cores: z.number().int(),
    cpus: z.number().int(),
    mhz: z
      .string()
      .optional()
      .meta({ description: "The first processor's clock as the kernel writes it (`3400.000`), a string as PVE sends it." }),
    hvm: z
      .enum(['1', ''])
      .optional()
      .meta({ description: "`'1'` when the processor has hardware virtualisation (vmx or svm), else `''`: as PVE sends it." }),
    flags: z.string().optional(),
    user_hz: z.number().int().optional(),
  }),
  'current-kernel': z.object({ sysname: z.string(), release: z.string(), version: z.string(), machine: z.string() }),
  kversion: z.string(),
  'boot-info': z
    .object({ mode: z.enum(['efi', 'legacy-bios']), secureboot: z.union([z.literal(0), z.literal(1)]).optional() })
    .optional()
    .meta({ description: 'How the host booted; `secureboot` only for `efi`.' }),
  pveversion: z.string().meta({
    description:
      '`pve-manager/<version>/<repoid>`: the PVE API version Corral serves and the commit it was built from, as `/version` gives them.',
  }),
  os: z.string(),
});

export const NODES_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/nodes',
    summary: 'List the cluster nodes',
    description: 'Any authenticated caller sees every node and its status; load and capacity only with Sys.Audit on `/nodes/{node}`.',
    parameters: z.object({}),
    returns: z.array(NodeListEntry),
    permission: { kind: 'authenticated' },
  }),
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}',
    summary: "The node's sub-resources",
    parameters: z.object(NODE),
    returns: z.array(z.object({ name: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  status: endpoint({
    method: 'GET',
    path: '/nodes/{node}/status',
    summary: "The node's load, memory, swap, root disk, CPU, kernel and boot mode, read from its agent now",
    description:
      "`wait`, `swap`, `ksm`, `boot-info` and `cpuinfo`'s `mhz`, `hvm`, `flags` and `user_hz` are absent when the node's agent is older than this control plane.",
    parameters: z.object(NODE),
    returns: NodeStatusResult,
    permission: AUDIT_NODE,
  }),
  subscription: endpoint({
    method: 'GET',
    path: '/nodes/{node}/subscription',
    summary: 'Subscription status: Corral has no subscriptions',
    parameters: z.object(NODE),
    returns: z.object({ status: z.literal('notfound'), message: z.string(), level: z.literal('') }),
    permission: AUDIT_NODE,
  }),
};
