import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { stringParam } from '../http/params.js';
import { UPID } from '../guests/guest.endpoints.js';
import { BACKUP_VOLID_HINT, BACKUP_VOLID_PATTERN } from '../guests/restore/restore-params.js';
import { NODE } from '../nodes/nodes.endpoints.js';
import { VZDUMP_PARAMS } from './vzdump-params.js';

/** `POST /nodes/{node}/vzdump` and PVE's `extractconfig` (docs/backups.md). */
export const VZDUMP_ENDPOINTS = {
  run: endpoint({
    method: 'POST',
    path: '/nodes/{node}/vzdump',
    summary: "Back up guests of the node into a storage's dump/ folder (a `vzdump` task)",
    description:
      'VM.Backup on each guest (for `all`, each guest of the node; for `pool`, each guest of the pool), Datastore.AllocateSpace on the storage, and Datastore.Allocate there to give `prune-backups`. Listed guests on other nodes are skipped, as PVE does. Returns the UPID.',
    parameters: z.object({ ...NODE, ...VZDUMP_PARAMS }),
    returns: UPID,
    permission: { kind: 'authenticated' },
  }),
  extractConfig: endpoint({
    method: 'GET',
    path: '/nodes/{node}/vzdump/extractconfig',
    summary: "The guest configuration a backup archive holds, as PVE's config file text",
    description: "VM.Backup on the archive's guest and Datastore.AllocateSpace on its storage (PVE).",
    parameters: z.object({
      ...NODE,
      volume: stringParam({
        description: 'The backup volume id.',
        maxLength: 1024,
        pattern: BACKUP_VOLID_PATTERN,
        patternHint: BACKUP_VOLID_HINT,
      }),
    }),
    returns: z.string(),
    permission: { kind: 'authenticated' },
  }),
};
