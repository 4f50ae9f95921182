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
  cpu: z.number().optional().meta({ description: 'CPU load, a fraction of all CPUs (spec 2.3).' }),
  maxcpu: z.number().int().optional(),
  mem: z.number().int().optional().meta({ description: 'Memory in use, bytes.' }),
  maxmem: z.number().int().optional().meta({ description: 'Memory total, bytes.' }),
  memtotal: z.number().int().optional().meta({ description: 'Memory total, bytes (spec 2.3; the same as `maxmem`).' }),
  disk: z.number().int().optional(),
  maxdisk: z.number().int().optional(),
  uptime: z.number().int().optional(),
  level: z.string().meta({ description: "Subscription level: always '' (Corral has none)." }),
  ssl_fingerprint: z.string().meta({ description: "The SHA-256 fingerprint of the certificate the node's agent pins: the control plane's." }),
});
export type NodeListEntry = z.infer<typeof NodeListEntry>;

export const NodeStatusResult = z.object({
  cpu: z.number(),
  loadavg: z.array(z.string()).meta({ description: '1, 5 and 15 minute load averages, as strings (PVE).' }),
  uptime: z.number().int(),
  memory: z.object({ total: z.number().int(), used: z.number().int(), free: z.number().int(), available: z.number().int() }),
  rootfs: z.object({ total: z.number().int(), used: z.number().int(), free: z.number().int(), avail: z.number().int() }),
  cpuinfo: z.object({ model: z.string(), sockets: z.number().int(), cores: z.number().int(), cpus: z.number().int() }),
  'current-kernel': z.object({ sysname: z.string(), release: z.string(), version: z.string(), machine: z.string() }),
  kversion: z.string(),
  pveversion: z.string().meta({ description: '`corral-agent/<version>`: the agent that answers for the node.' }),
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
    summary: "The node's load, memory, root disk, CPU and kernel, read from its agent now",
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
