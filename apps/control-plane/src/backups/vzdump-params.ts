import { BackupMode, StorageId, type BackupCompression } from '@corral/protocol';
import type { PruneOptions } from '@corral/pve-formats';
import { z } from 'zod';
import { badParam } from '../errors/resource-errors.js';
import { booleanParam, commaListParam, integerParam, stringParam } from '../http/params.js';
import { VMID_PARAM } from '../guests/guest.endpoints.js';
import { poolidParam } from '../inventory/pools/pool-params.js';
import { pruneOptionsOf } from '../storage/storage-config.js';

/*
 * What a backup run takes (PVE's vzdump options), shared by `POST
 * /nodes/{node}/vzdump` and the backup jobs of `/cluster/backup`, which store them and run them on
 * schedule. Corral takes the subset it implements; the rest of PVE's options are refused by name.
 */

/** PVE's `compress`: `0` none, `1`/`lzo` LZO, `gzip`, `zstd`. Corral writes none, gzip or zstd. */
const COMPRESS = z.enum(['0', '1', 'gzip', 'lzo', 'zstd']);

export const VZDUMP_PARAMS = {
  vmid: commaListParam(VMID_PARAM, 'The guests to back up, comma-separated (not with `all` or `pool`).').optional(),
  all: booleanParam({
    description: 'Back up every guest (of the node, for a vzdump; of the cluster or `node`, for a job), but those in `exclude`.',
  }).optional(),
  pool: poolidParam().optional(),
  exclude: commaListParam(VMID_PARAM, 'Guests left out of `all` or `pool`, comma-separated.').optional(),
  storage: StorageId.optional().meta({
    description: "Where the archives go: a storage with the `backup` content kind. Default `local`, as PVE's.",
  }),
  mode: BackupMode.optional().meta({
    description:
      '`snapshot` (default: a running guest keeps running), `suspend` (paused for the copy) or `stop` (stopped, then started again).',
  }),
  compress: z
    .preprocess((value) => (typeof value === 'number' ? String(value) : value), COMPRESS)
    .optional()
    .meta({ description: "`0` (none, the default), `gzip` or `zstd`. PVE's LZO (`1`, `lzo`) is not supported." }),
  'notes-template': stringParam({
    description: "The backup's notes, with `{{guestname}}`, `{{node}}`, `{{vmid}}` and `{{cluster}}` filled in.",
    maxLength: 1024,
  }).optional(),
  'prune-backups': stringParam({
    description: "Retention applied after each backup instead of the storage's (`keep-last=3,keep-weekly=2`).",
    maxLength: 1024,
  }).optional(),
  remove: booleanParam({ description: 'Prune older backups of each guest after its backup (default 1).' }).optional(),
  stopwait: integerParam({ description: 'Minutes a guest gets to shut down in `stop` mode (default 10).', min: 1, max: 1440 }).optional(),
};

export type VzdumpParams = z.infer<z.ZodObject<typeof VZDUMP_PARAMS>>;

/** Which guests a run backs up. */
export type BackupSelection =
  | { readonly kind: 'vmids'; readonly vmids: readonly number[] }
  | { readonly kind: 'all'; readonly exclude: readonly number[] }
  | { readonly kind: 'pool'; readonly pool: string; readonly exclude: readonly number[] };

/** The checked options of a run. */
export interface VzdumpOptions {
  readonly selection: BackupSelection;
  readonly storage: string;
  readonly mode: BackupMode;
  readonly compress: BackupCompression;
  readonly notesTemplate?: string;
  /** Retention instead of the storage's; undefined: the storage's. */
  readonly pruneBackups?: PruneOptions;
  readonly remove: boolean;
  readonly stopwaitS: number;
}

/** Checks the combination of the options (a 400 naming the parameter) and fills in PVE's defaults. */
export function vzdumpOptionsOf(params: VzdumpParams): VzdumpOptions {
  return {
    selection: selectionOf(params),
    storage: params.storage ?? 'local',
    mode: params.mode ?? 'snapshot',
    compress: compressionOf(params.compress),
    ...(params['notes-template'] !== undefined ? { notesTemplate: params['notes-template'] } : {}),
    ...(params['prune-backups'] !== undefined ? { pruneBackups: pruneOptionsOf(params['prune-backups']) } : {}),
    remove: params.remove ?? true,
    stopwaitS: (params.stopwait ?? 10) * 60,
  };
}

function selectionOf(params: VzdumpParams): BackupSelection {
  const given = [params.vmid !== undefined && 'vmid', params.all === true && 'all', params.pool !== undefined && 'pool'].filter(
    (name) => name !== false,
  );
  if (given.length === 0) throw badParam('vmid', 'give the guests to back up: vmid, all=1 or pool');
  if (given.length > 1) throw badParam(given[1] as string, `${given.join(' and ')} exclude each other: give one`);
  const exclude = params.exclude ?? [];
  if (params.vmid !== undefined) {
    if (exclude.length > 0) throw badParam('exclude', 'applies to all=1 or pool only');
    return { kind: 'vmids', vmids: [...new Set(params.vmid)] };
  }
  return params.pool !== undefined ? { kind: 'pool', pool: params.pool, exclude } : { kind: 'all', exclude };
}

function compressionOf(compress: VzdumpParams['compress']): BackupCompression {
  if (compress === '1' || compress === 'lzo') throw badParam('compress', 'LZO is not supported: use 0, gzip or zstd');
  return compress === 'gzip' || compress === 'zstd' ? compress : 'none';
}
