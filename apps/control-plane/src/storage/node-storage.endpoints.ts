import { ChecksumAlgorithm, ContentKind } from '@corral/protocol';
import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { booleanParam, commaListParam, integerParam, stringParam } from '../http/params.js';
import { nodeParam } from '../nodes/node-params.js';
import { NODE } from '../nodes/nodes.endpoints.js';
import { AUDIT_STORAGE, CONTENT_FILTERS, ContentEntry, STORAGE, StorageStatusEntry } from './storage.endpoints.js';

/*
 * One node's view of its storages (PVE's `/nodes/{node}/storage/...`): sizes and
 * files as that node's agent finds them now, uploads into them, and volumes removed from them.
 */

/** The largest file an upload takes: a DVD image is 4.7 GB, a full distribution's ISO rarely more than 10 GiB. */
export const MAX_UPLOAD_BYTES = 16 * 1024 ** 3;

const NODE_STORAGE = { ...NODE, ...STORAGE };
const VOLUME = {
  volume: stringParam({
    description:
      'The volume: its id (`local:iso/x.iso`) or its name on the storage (`iso/x.iso`): the rest of the path, with its `/` as it is or URL-encoded.',
    minLength: 1,
    maxLength: 1024,
  }),
};

export const NODE_STORAGE_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage',
    summary: 'The storages defined for the node, with its sizes of them now',
    description:
      'Only storages the caller may audit (Datastore.Audit or Datastore.AllocateSpace on `/storage/<storage>`). A disabled storage is listed inactive, without sizes.',
    parameters: z.object({
      ...NODE,
      content: commaListParam(ContentKind, 'Only storages that hold one of these content kinds, comma-separated.').optional(),
      storage: STORAGE.storage.optional(),
      enabled: booleanParam({ description: 'Only enabled storages.' }).optional(),
      target: nodeParam('Only storages that `target` sees too: for another node, the shared storages defined for both.').optional(),
    }),
    returns: z.array(StorageStatusEntry),
    permission: { kind: 'authenticated' },
  }),
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage/{storage}',
    summary: "The storage's sub-resources on the node",
    parameters: z.object(NODE_STORAGE),
    returns: z.array(z.object({ subdir: z.string() })),
    permission: AUDIT_STORAGE,
  }),
  status: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage/{storage}/status',
    summary: "The storage's size, use and free space on the node",
    parameters: z.object(NODE_STORAGE),
    returns: StorageStatusEntry,
    permission: AUDIT_STORAGE,
  }),
  content: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage/{storage}/content',
    summary: "The storage's volumes on the node, read from its files",
    parameters: z.object({ ...NODE_STORAGE, ...CONTENT_FILTERS }),
    returns: z.array(ContentEntry),
    permission: AUDIT_STORAGE,
  }),
  volume: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage/{storage}/content/{volume+}',
    summary: 'One volume: its path on the node, size and format',
    parameters: z.object({ ...NODE_STORAGE, ...VOLUME }),
    returns: z.object({
      path: z.string(),
      size: z.number().int(),
      used: z.number().int(),
      format: z.string(),
      notes: z.string().optional(),
      protected: z.literal(1).optional(),
    }),
    permission: AUDIT_STORAGE,
  }),
  deleteVolume: endpoint({
    method: 'DELETE',
    path: '/nodes/{node}/storage/{storage}/content/{volume+}',
    summary: 'Remove a volume (an `imgdel` task)',
    description:
      "Datastore.Allocate on the storage; a backup also with Datastore.AllocateSpace and VM.Backup on its guest (PVE). A volume that a guest's configuration names is refused (409). Returns the task's UPID; with `delay`, waits that long for its end and then returns null (or its error).",
    parameters: z.object({
      ...NODE_STORAGE,
      ...VOLUME,
      delay: integerParam({ description: 'Seconds to wait for the task to end (PVE).', min: 1, max: 30 }).optional(),
    }),
    returns: z.string().nullable(),
    permission: { kind: 'authenticated' },
  }),
  upload: endpoint({
    method: 'POST',
    path: '/nodes/{node}/storage/{storage}/upload',
    summary: 'Upload an ISO image or a container template (an `imgcopy` task)',
    description: `A multipart form as proxmoxer sends it: \`content\`, optional \`checksum\` and \`checksum-algorithm\`, then the file as the part \`filename\` (its file name is the volume's, made safe as PVE does), at most ${MAX_UPLOAD_BYTES / 1024 ** 3} GiB. The file is streamed to the node's agent as it arrives and stored only once complete and, with a checksum, verified. Returns the UPID once the whole body is received.`,
    parameters: z.object({
      ...NODE_STORAGE,
      content: z.enum(['iso', 'vztmpl']).meta({
        description: '`iso` (an `.iso` or `.img` image) or `vztmpl` (a `.tar`, `.tar.gz`, `.tar.xz`, `.tar.zst` or `.tgz` template).',
      }),
      filename: stringParam({ description: "The file (a multipart part); its name is the volume's.", maxLength: 255 }),
      checksum: stringParam({ description: 'The expected digest, in hex.', maxLength: 128 }).optional(),
      'checksum-algorithm': ChecksumAlgorithm.optional().meta({ description: "The digest's algorithm; needed with `checksum`." }),
    }),
    returns: z.string(),
    permission: { kind: 'privileges', path: '/storage/{storage}', privileges: ['Datastore.AllocateTemplate'] },
    upload: { file: 'filename', maxBytes: MAX_UPLOAD_BYTES },
  }),
};
