import { ContentKind, StorageId } from '@corral/protocol';
import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { booleanParam, commaListParam, integerParam, stringParam } from '../http/params.js';
import { nodeParam } from '../nodes/node-params.js';

/*
 * Storage definitions on PVE's paths and names, with Corral's
 * sizes in the list and its `/storage/{storage}/status` and `/content`, which answer for the whole
 * cluster or, with `node`, for one node (docs/storage.md).
 */

export const STORAGE = { storage: StorageId.meta({ description: 'The storage.' }) };

/** PVE: Datastore.Allocate on `/storage` to define, change or remove storages. */
const ALLOCATE_STORAGES: Check = { kind: 'privileges', path: '/storage', privileges: ['Datastore.Allocate'] };
/** PVE: Datastore.Audit or Datastore.AllocateSpace on the storage to read its status and content. */
export const AUDIT_STORAGE: Check = {
  kind: 'privileges',
  path: '/storage/{storage}',
  privileges: ['Datastore.Audit', 'Datastore.AllocateSpace'],
  any: true,
};

const Flag = z.union([z.literal(0), z.literal(1)]);

/** A definition as PVE's `GET /storage/{storage}` shows it: `storage.cfg`'s keys and values. */
export const StorageConfigEntry = z.object({
  storage: z.string(),
  type: z.literal('dir'),
  path: z.string(),
  content: z.string().meta({ description: 'Content kinds, comma-separated and sorted (`backup,images,iso`).' }),
  nodes: z.string().optional().meta({ description: 'The nodes it is defined for, comma-separated; absent: every node.' }),
  shared: Flag.meta({ description: '1: every node sees the same files (a network file system mounted at `path`).' }),
  disable: z.literal(1).optional(),
  enabled: Flag.meta({ description: "Corral's: 0 when `disable` is set." }),
  'prune-backups': z.string().optional().meta({ description: 'The retention of backups (`keep-last=3,keep-weekly=2`).' }),
  is_mountpoint: z.literal('yes').optional().meta({ description: "The path must be a mounted file system (Corral's `is-rootdir`)." }),
  digest: z.string().meta({ description: 'SHA-1 of the definition, for `digest` in a change.' }),
});

/** Sizes as the nodes' file systems report them now (docs/storage.md says how nodes add up). */
const SIZES = {
  total: z.number().int().meta({ description: 'Bytes.' }),
  used: z.number().int().meta({ description: 'Bytes.' }),
  avail: z.number().int().meta({ description: 'Bytes free for use.' }),
  active: Flag.meta({ description: 'Whether a node that holds it answered with it active.' }),
};

/** One storage on one node, or summed over the cluster: PVE's `/nodes/{node}/storage` entry and status. */
export const StorageStatusEntry = z.object({
  storage: z.string(),
  type: z.literal('dir'),
  content: z.string(),
  shared: Flag,
  enabled: Flag,
  ...SIZES,
  used_fraction: z.number().meta({ description: '`used` / `total` (0 when the total is unknown).' }),
});

export const ContentEntry = z.object({
  volid: z.string(),
  content: z.string().meta({ description: '`images`, `rootdir`, `iso`, `vztmpl`, `backup`, `snippets` or `import`.' }),
  format: z.string(),
  size: z.number().int().meta({ description: "Bytes; an image's virtual size, 0 for a container's root folder." }),
  used: z.number().int().optional(),
  ctime: z.number().int().meta({ description: 'Seconds since the epoch.' }),
  vmid: z.number().int().optional(),
  subtype: z.enum(['qemu', 'lxc']).optional(),
  notes: z.string().optional(),
  protected: z.literal(1).optional(),
});

const STORAGE_SETTINGS = {
  content: stringParam({
    description:
      'Content kinds, comma-separated: `images`, `rootdir`, `iso`, `vztmpl`, `backup`, `snippets`, `import`, or `none` (default `images,rootdir`).',
    maxLength: 256,
  }).optional(),
  nodes: commaListParam(nodeParam('A node.'), 'The nodes it is defined for, comma-separated (default: every node).').optional(),
  shared: booleanParam({
    description: 'Every node sees the same files at `path` (a network file system): sizes count once, content is read on one node.',
  }).optional(),
  disable: booleanParam({ description: 'Keep the definition but use the storage nowhere.' }).optional(),
  'prune-backups': stringParam({
    description:
      'Retention of backups: `keep-last=<n>`, `keep-hourly`, `keep-daily`, `keep-weekly`, `keep-monthly`, `keep-yearly`, or `keep-all=1`, comma-separated.',
    maxLength: 256,
  }).optional(),
  is_mountpoint: z
    .preprocess(
      (value) => (value === 'yes' ? true : value === 'no' ? false : value),
      booleanParam({
        description:
          "PVE's: the path is a mount point (`yes`/`no`, 1/0); while nothing is mounted there, the storage is inactive on that node and nothing is written under it.",
      }),
    )
    .optional(),
  'is-rootdir': booleanParam({ description: "Corral's name for `is_mountpoint` (1 or 0)." }).optional(),
};
export type StorageSettingParams = z.output<z.ZodObject<typeof STORAGE_SETTINGS>>;

/** What `delete` may clear in a change. */
export const DELETABLE_SETTINGS = ['content', 'nodes', 'shared', 'disable', 'prune-backups', 'is_mountpoint'] as const;

/** The filters of a content list (PVE's). */
export const CONTENT_FILTERS = {
  content: ContentKind.optional().meta({ description: 'Only volumes of this kind.' }),
  vmid: integerParam({ description: 'Only volumes of this guest (its images and backups).', min: 100 }).optional(),
};

export const NODE_CHOICE = {
  node: nodeParam('Only this node (default: every online node that holds the storage; for a shared storage, one of them).').optional(),
};

export const STORAGE_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/storage',
    summary: 'The storage definitions, with their sizes now',
    description:
      "Only storages the caller may audit (Datastore.Audit or Datastore.AllocateSpace on `/storage/<storage>`). Sizes are asked of the online nodes that hold each storage: summed over them, a shared storage's counted once.",
    parameters: z.object({ type: z.literal('dir').optional().meta({ description: 'Only storages of this type.' }) }),
    returns: z.array(StorageConfigEntry.extend(SIZES)),
    permission: { kind: 'authenticated' },
  }),
  create: endpoint({
    method: 'POST',
    path: '/storage',
    summary: 'Define a storage',
    description:
      "Only `dir` is implemented: another PVE type is a 400 that says so. The path must be absolute, without `.` or `..`, and none of the host's system folders. Its folders are made on every online node that holds it before the definition is stored (a node that cannot make them fails the create); nodes that come online later make them then.",
    parameters: z.object({
      ...STORAGE,
      type: stringParam({ description: "`dir`. (PVE's other types are refused for now.)", maxLength: 32 }),
      path: stringParam({ description: 'The folder on each node, e.g. `/srv/isos` or `/mnt/backup`.', maxLength: 1024 }).optional(),
      ...STORAGE_SETTINGS,
    }),
    returns: z.object({ storage: z.string(), type: z.literal('dir') }),
    permission: ALLOCATE_STORAGES,
  }),
  get: endpoint({
    method: 'GET',
    path: '/storage/{storage}',
    summary: 'One storage definition',
    description: 'PVE: Datastore.Allocate on the storage.',
    parameters: z.object(STORAGE),
    returns: StorageConfigEntry,
    permission: { kind: 'privileges', path: '/storage/{storage}', privileges: ['Datastore.Allocate'] },
  }),
  update: endpoint({
    method: 'PUT',
    path: '/storage/{storage}',
    summary: 'Change a storage definition',
    description:
      'The type and path are fixed. The folders of added content kinds are made on its online nodes before the change is stored.',
    parameters: z.object({
      ...STORAGE,
      ...STORAGE_SETTINGS,
      delete: commaListParam(z.enum(DELETABLE_SETTINGS), `Settings to clear: ${DELETABLE_SETTINGS.join(', ')}.`).optional(),
      digest: stringParam({
        description: 'The `digest` of the read this change is based on: 409 when the definition changed since.',
        maxLength: 64,
      }).optional(),
    }),
    returns: z.object({ storage: z.string(), type: z.literal('dir') }),
    permission: ALLOCATE_STORAGES,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/storage/{storage}',
    summary: 'Remove a storage definition (its files stay on the nodes)',
    description:
      'Refused (409) while guests have volumes on it, unless `force=1`; their configurations then name a storage that no longer exists.',
    parameters: z.object({
      ...STORAGE,
      force: booleanParam({ description: 'Remove it even though guests have volumes on it.' }).optional(),
    }),
    returns: z.null(),
    permission: ALLOCATE_STORAGES,
  }),
  status: endpoint({
    method: 'GET',
    path: '/storage/{storage}/status',
    summary: "The storage's size, use and free space",
    description: 'For the cluster as `GET /storage` counts it, or for one `node`.',
    parameters: z.object({ ...STORAGE, ...NODE_CHOICE }),
    returns: StorageStatusEntry,
    permission: AUDIT_STORAGE,
  }),
  content: endpoint({
    method: 'GET',
    path: '/storage/{storage}/content',
    summary: "The storage's volumes",
    description:
      "Read from the files of every online node that holds it (of one for a shared storage), each entry naming its `node`; with `node`, that node's only.",
    parameters: z.object({
      ...STORAGE,
      ...NODE_CHOICE,
      ...CONTENT_FILTERS,
    }),
    returns: z.array(ContentEntry.extend({ node: z.string() })),
    permission: AUDIT_STORAGE,
  }),
};
