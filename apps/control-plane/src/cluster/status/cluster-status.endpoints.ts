import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';

const ClusterEntry = z.object({
  type: z.literal('cluster'),
  id: z.literal('cluster'),
  name: z.string(),
  nodes: z.number().int().meta({ description: 'How many nodes have joined.' }),
  quorate: z.boolean().meta({
    description:
      "Whether this control plane is in touch with the cluster's database, where every decision is made (Corral's quorum: there is no corosync vote).",
  }),
  version: z.number().int(),
});

const NodeEntry = z.object({
  type: z.literal('node'),
  id: z.string(),
  name: z.string(),
  node: z.string(),
  status: z.enum(['online', 'offline']),
  online: z.union([z.literal(0), z.literal(1)]),
  level: z.literal(''),
  local: z.union([z.literal(0), z.literal(1)]).meta({ description: '1: this control-plane replica holds the agent of the node.' }),
  uptime: z.number().int(),
  cpu: z.number(),
  mem: z.number().int(),
  maxmem: z.number().int(),
  disk: z.number().int(),
  maxdisk: z.number().int(),
});

export type ClusterStatusNode = z.output<typeof NodeEntry>;

export const CLUSTER_STATUS_ENDPOINT = endpoint({
  method: 'GET',
  path: '/cluster/status',
  summary: 'The cluster and its nodes: first a `type: cluster` entry with `quorate`, then one `type: node` entry per node',
  parameters: z.object({}),
  returns: z.array(z.union([ClusterEntry, NodeEntry])),
  permission: { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] },
});
