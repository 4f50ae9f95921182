import { GuestType } from '@corral/protocol';
import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../http/params.js';
import { NODE } from '../nodes/nodes.endpoints.js';
import { AUDIT_STORAGE, NODE_CHOICE, STORAGE } from './storage.endpoints.js';

/*
 * Pruning backups by retention: PVE's dry run and prune task on one
 * node (`/nodes/{node}/storage/{storage}/prunebackups`), and Corral's own `POST /storage/{storage}/prune`
 * for the nodes that hold the storage (docs/storage.md, "Prune").
 */

/** What a prune considers, and by which rules. */
const PRUNE_PARAMS = {
  'prune-backups': stringParam({
    description:
      "The retention instead of the storage's own `prune-backups`: `keep-last=<n>`, `keep-hourly`, `keep-daily`, `keep-weekly`, `keep-monthly`, `keep-yearly`, or `keep-all=1`, comma-separated. Needed when the storage has none.",
    maxLength: 256,
  }).optional(),
  type: GuestType.optional().meta({ description: 'Only the backups of guests of this type: `qemu` or `lxc`.' }),
  vmid: integerParam({ description: 'Only the backups of this guest.', min: 100, max: 999_999_999 }).optional(),
};

/** One backup and what a prune does to it (PVE's `GET .../prunebackups` entry). */
export const PruneEntry = z.object({
  volid: z.string(),
  ctime: z.number().int().meta({ description: "Seconds since the epoch: the time in the archive's name." }),
  mark: z
    .enum(['keep', 'remove', 'protected'])
    .meta({ description: "`keep` or `remove` by the retention of its guest's backups; `protected` ones are never removed." }),
  type: GuestType,
  vmid: z.number().int(),
});
export type PruneEntry = z.infer<typeof PruneEntry>;

/** Who may remove backups (PVE's check, made by the service: backup-permissions.ts). */
const REMOVE_BACKUPS =
  'Needs Datastore.Allocate on the storage, or, with `vmid`, Datastore.AllocateSpace on it and VM.Backup on the guest (PVE).';

export const PRUNE_BACKUPS_ENDPOINTS = {
  dryRun: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage/{storage}/prunebackups',
    summary: "What a prune would keep and remove of the node's backups on the storage",
    description:
      "Per guest and type, by PVE's retention rules, read from the node's files now. A preview: a prune started later decides anew. The storage must hold backups; without `prune-backups`, its own retention applies (a 400 when it has none).",
    parameters: z.object({ ...NODE, ...STORAGE, ...PRUNE_PARAMS }),
    returns: z.array(PruneEntry),
    permission: AUDIT_STORAGE,
  }),
  prune: endpoint({
    method: 'DELETE',
    path: '/nodes/{node}/storage/{storage}/prunebackups',
    summary: 'Remove the backups the retention does not keep (a `prunebackups` task)',
    description: `Each removed backup is logged; protected ones are never removed. ${REMOVE_BACKUPS} Returns the task's UPID.`,
    parameters: z.object({ ...NODE, ...STORAGE, ...PRUNE_PARAMS }),
    returns: z.string(),
    permission: { kind: 'authenticated' },
  }),
  pruneInCluster: endpoint({
    method: 'POST',
    path: '/storage/{storage}/prune',
    summary: 'Prune backups on the nodes that hold the storage',
    description: `On \`node\`, or on every online node that holds the storage (one of them for a shared storage). With \`dry-run=1\`, what would be kept and removed, each entry naming its node (Datastore.Audit or Datastore.AllocateSpace on the storage); otherwise one \`prunebackups\` task for all those nodes, its UPID returned. ${REMOVE_BACKUPS}`,
    parameters: z.object({
      ...STORAGE,
      ...NODE_CHOICE,
      'dry-run': booleanParam({ description: 'Only show what would be kept and removed.' }).optional(),
      ...PRUNE_PARAMS,
    }),
    returns: z.union([z.string(), z.array(PruneEntry.extend({ node: z.string() }))]),
    permission: { kind: 'authenticated' },
  }),
};
