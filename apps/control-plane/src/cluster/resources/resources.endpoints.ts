import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { integerParam } from '../../http/params.js';

/** One entry of `/cluster/resources`: a node, a guest or a storage of a node. */
export const ResourceEntry = z.object({
  id: z.string().meta({ description: '`node/<node>`, `qemu/<vmid>`, `lxc/<vmid>`, `storage/<node>/<storage>`.' }),
  type: z.enum(['node', 'qemu', 'lxc', 'storage']),
  node: z.string(),
  status: z.string(),
  vmid: z.number().int().optional(),
  name: z.string().optional(),
  template: z.union([z.literal(0), z.literal(1)]).optional(),
  lock: z.string().optional(),
  tags: z.string().optional(),
  pool: z.string().optional(),
  storage: z.string().optional(),
  plugintype: z.string().optional(),
  content: z.string().optional(),
  shared: z.union([z.literal(0), z.literal(1)]).optional(),
  cpu: z.number().optional(),
  maxcpu: z.number().int().optional(),
  mem: z.number().int().optional(),
  maxmem: z.number().int().optional(),
  disk: z.number().int().optional(),
  maxdisk: z.number().int().optional(),
  uptime: z.number().int().optional(),
  netin: z.number().int().optional().meta({ description: "A guest's bytes received since it started (0 where its driver counts none)." }),
  netout: z.number().int().optional(),
  diskread: z.number().int().optional(),
  diskwrite: z.number().int().optional(),
  level: z.string().optional(),
});
export type ResourceEntry = z.infer<typeof ResourceEntry>;

/** A pool, listed without a `type` filter: with the summed load of its running guests. */
export const PoolResourceEntry = z.object({
  id: z.string().meta({ description: '`/pool/<pool>` (with the leading slash, as PVE).' }),
  type: z.literal('pool'),
  pool: z.string(),
  cpu: z.number().optional(),
  maxcpu: z.number().int().optional(),
  mem: z.number().int().optional(),
  maxmem: z.number().int().optional(),
  uptime: z.number().int().optional(),
});
export type PoolResourceEntry = z.infer<typeof PoolResourceEntry>;

export const RESOURCES_ENDPOINTS = {
  resources: endpoint({
    method: 'GET',
    path: '/cluster/resources',
    summary: 'Nodes, guests and storages of the cluster',
    description:
      "Each entry only where the caller may audit it (Sys.Audit for node load, VM.Audit per guest, Datastore.Audit per storage, Pool.Audit per pool). A guest in a pool names it in `pool`; pools are listed only without `type`. Nodes and guests from memory; a storage's `disk` and `maxdisk` (used and total bytes on that node) as its node's agent reports them with its inventory (every 5 s).",
    parameters: z.object({
      type: z.enum(['node', 'vm', 'storage'], { error: 'must be node, vm or storage' }).optional().meta({ description: 'Only this kind.' }),
    }),
    returns: z.array(z.union([ResourceEntry, PoolResourceEntry])),
    permission: { kind: 'authenticated' },
  }),
  nextid: endpoint({
    method: 'GET',
    path: '/cluster/nextid',
    summary: 'A free vmid, as a string, kept from other nextid callers for a minute',
    parameters: z.object({
      vmid: integerParam({ description: 'Check this id instead: returned when free, else a 400.', min: 100, max: 999_999_999 }).optional(),
    }),
    returns: z.string(),
    permission: { kind: 'authenticated' },
  }),
};
