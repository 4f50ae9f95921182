import { ChecksumAlgorithm } from '@corral/protocol';
import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { booleanParam, stringParam } from '../http/params.js';
import { NODE } from '../nodes/nodes.endpoints.js';
import { STORAGE } from './storage.endpoints.js';

/*
 * Downloads into a node's storages from a URL (PVE's `download-url`, `query-url-metadata` and
 * appliance templates, docs/storage.md "Downloads"): the node's agent does the download, from the
 * node's network.
 */

/** The largest file a download takes: a cloud image or an appliance, compressed or not. */
export const MAX_DOWNLOAD_BYTES = 64 * 1024 ** 3;

const URL_PARAMS = {
  url: stringParam({
    description: 'The URL (http or https).',
    maxLength: 2048,
    pattern: /^https?:\/\/./,
    patternHint: 'must be an http or https URL',
  }),
  'verify-certificates': booleanParam({ description: "Verify an https server's certificate (default 1)." }).optional(),
};

/** PVE: a request from the node's network needs Sys.Audit and Sys.Modify on `/`, or Sys.AccessNetwork on the node. */
const NETWORK_ACCESS: Check = {
  kind: 'anyOf',
  checks: [
    { kind: 'privileges', path: '/', privileges: ['Sys.Audit', 'Sys.Modify'] },
    { kind: 'privileges', path: '/nodes/{node}', privileges: ['Sys.AccessNetwork'] },
  ],
};
const ALLOCATE_TEMPLATE: Check = { kind: 'privileges', path: '/storage/{storage}', privileges: ['Datastore.AllocateTemplate'] };

/** An appliance of the index, with PVE's fields (lower-case `aplinfo.dat` keys, `template`, `source`; `location` absolute). */
export const Appliance = z.record(z.string(), z.string()).meta({
  description:
    'package, version, type, os, section, headline, description, location, template, source, sha512sum, ... as the index gives them.',
});

export const DOWNLOAD_ENDPOINTS = {
  downloadUrl: endpoint({
    method: 'POST',
    path: '/nodes/{node}/storage/{storage}/download-url',
    summary: 'Download an ISO image, a container template or a disk image to import from a URL (a `download` task)',
    description: `The node's agent downloads the file into the storage's folder for \`content\`, at most ${MAX_DOWNLOAD_BYTES / 1024 ** 3} GiB, and stores it only once complete and, with a checksum, verified; an existing file is not replaced. Local and private addresses are refused unless the operator allows their network (CORRAL_DOWNLOAD_ALLOW_NETWORKS).`,
    parameters: z.object({
      ...NODE,
      ...STORAGE,
      ...URL_PARAMS,
      content: z.enum(['iso', 'vztmpl', 'import']).meta({
        description:
          '`iso` (`.iso`, `.img`), `vztmpl` (`.tar`, `.tar.gz`, `.tar.xz`, `.tar.zst`, `.tar.bz2`, `.tgz`) or `import` (`.qcow2`, `.raw`, `.vmdk`, `.ova`).',
      }),
      filename: stringParam({
        description: "The file's name in the storage (without `/` or `..`; other characters than letters, digits, `_ . -` become `_`).",
        maxLength: 255,
      }),
      checksum: stringParam({ description: 'The expected digest of the downloaded bytes, in hex.', maxLength: 128 }).optional(),
      'checksum-algorithm': ChecksumAlgorithm.optional().meta({ description: "The digest's algorithm; needed with `checksum`." }),
      compression: stringParam({
        description:
          'Unpack the download: `gz` (ISO images only). PVE also knows `lzo`, `zst` and `bz2`, which Corral does not unpack yet.',
        maxLength: 16,
      }).optional(),
    }),
    returns: z.string(),
    permission: { kind: 'allOf', checks: [ALLOCATE_TEMPLATE, NETWORK_ACCESS] },
  }),
  queryUrlMetadata: endpoint({
    method: 'GET',
    path: '/nodes/{node}/query-url-metadata',
    summary: "A URL's file name, MIME type and size, asked by the node (a HEAD request)",
    parameters: z.object({ ...NODE, ...URL_PARAMS }),
    returns: z.object({ filename: z.string().optional(), mimetype: z.string().optional(), size: z.number().int().optional() }),
    permission: NETWORK_ACCESS,
  }),
  appliances: endpoint({
    method: 'GET',
    path: '/nodes/{node}/aplinfo',
    summary: 'The appliance templates of the appliance index (CORRAL_APLINFO_URL)',
    parameters: z.object(NODE),
    returns: z.array(Appliance),
    permission: { kind: 'authenticated' },
  }),
  downloadAppliance: endpoint({
    method: 'POST',
    path: '/nodes/{node}/aplinfo',
    summary: "Download an appliance template of the index into a storage's `vztmpl` folder (a `download` task)",
    parameters: z.object({
      ...NODE,
      storage: STORAGE.storage.meta({ description: 'The storage that will hold the template.' }),
      template: stringParam({ description: "The template, as the index's `template` names it.", maxLength: 255 }),
    }),
    returns: z.string(),
    permission: ALLOCATE_TEMPLATE,
  }),
};
