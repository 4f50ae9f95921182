import { CalendarEventError, parseCalendarEvent } from '@corral/pve-formats';
import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, commaListParam, stringParam } from '../../http/params.js';
import { nodeParam } from '../../nodes/node-params.js';
import { VZDUMP_PARAMS } from '../vzdump-params.js';

/*
 * Scheduled backup jobs on PVE's paths and names (`/cluster/backup`;
 * docs/backups.md "Backup jobs"): the vzdump parameters of a run, plus when and where it runs.
 */

const AUDIT: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] };
const MODIFY: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Modify'] };

const Flag = z.union([z.literal(0), z.literal(1)]);

// PVE's pve-configid for a new id; an existing one is any text without spaces of up to 50 characters.
const NEW_ID = /^[A-Za-z][A-Za-z0-9_-]*$/;

const jobIdParam = () =>
  stringParam({ description: 'The job.', maxLength: 50, pattern: /^\S+$/, patternHint: 'must not contain white space' });

/** A calendar event that parses: the error names the position of what is wrong. */
const scheduleParam = () => {
  const description =
    "When the job runs: a calendar event (`daily`, `sat 02:00`, `mon..fri 22:30`, `*/15`), on the control plane's local time unless it ends in `UTC`.";
  return stringParam({ description, maxLength: 128 })
    .superRefine((text, context) => {
      try {
        parseCalendarEvent(text);
      } catch (error) {
        if (!(error instanceof CalendarEventError)) throw error;
        context.addIssue({ code: 'custom', message: `invalid calendar event '${text}': ${error.message}` });
      }
    })
    .meta({ description });
};

/** What a job holds besides its id and schedule: a run's vzdump parameters, and where and whether it runs. */
const JOB_FIELDS = {
  ...VZDUMP_PARAMS,
  enabled: booleanParam({ description: 'Whether the job runs on its schedule (default 1).' }).optional(),
  node: nodeParam('Only back up the guests of this node; absent: the guests of every node.').optional(),
  comment: stringParam({ description: 'A description of the job.', maxLength: 512 }).optional(),
  'repeat-missed': booleanParam({
    description: 'Run a slot missed while no control plane ran once, as soon as one runs again (default 1; PVE: 0).',
  }).optional(),
};

/** The settings `delete` may reset: every optional one. */
export const DELETABLE = ['enabled', 'node', 'comment', 'repeat-missed', ...Object.keys(VZDUMP_PARAMS)] as [string, ...string[]];

export const BackupJobEntry = z.object({
  id: z.string(),
  type: z.literal('vzdump'),
  schedule: z.string(),
  enabled: Flag,
  'next-run': z
    .number()
    .int()
    .optional()
    .meta({ description: 'Epoch seconds of the next run; absent when the job is disabled or its schedule has no time left.' }),
  'repeat-missed': Flag.meta({ description: "Always present: Corral's default (1) differs from PVE's." }),
  node: z.string().optional(),
  comment: z.string().optional(),
  vmid: z.string().optional().meta({ description: 'Comma-separated.' }),
  all: z.literal(1).optional(),
  pool: z.string().optional(),
  exclude: z.string().optional().meta({ description: 'Comma-separated.' }),
  storage: z.string().optional(),
  mode: z.string().optional(),
  compress: z.string().optional(),
  'notes-template': z.string().optional(),
  'prune-backups': z
    .record(z.string(), z.number().int())
    .optional()
    .meta({ description: 'The retention options, as PVE shows them: `{"keep-last": 3}` (`keep-all` as 0 or 1).' }),
  remove: Flag.optional(),
  stopwait: z.number().int().optional(),
});
export type BackupJobEntry = z.infer<typeof BackupJobEntry>;

const ID = { id: jobIdParam() };

export const BACKUP_JOB_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/cluster/backup',
    summary: 'List the backup jobs',
    parameters: z.object({}),
    returns: z.array(BackupJobEntry),
    permission: AUDIT,
  }),
  create: endpoint({
    method: 'POST',
    path: '/cluster/backup',
    summary: 'Create a backup job',
    description:
      'Give the guests (`vmid`, `all=1` or `pool`) and a `schedule`; `storage`, `node` and `pool` must exist. Without `id`, a UUID is made up. A job runs at the slots of its schedule after its creation.',
    parameters: z.object({
      id: stringParam({
        description: 'The job id (default: a new UUID).',
        maxLength: 50,
        pattern: NEW_ID,
        patternHint: 'must be a letter followed by letters, digits, _ or -',
      }).optional(),
      schedule: scheduleParam(),
      ...JOB_FIELDS,
    }),
    returns: z.null(),
    permission: MODIFY,
  }),
  get: endpoint({
    method: 'GET',
    path: '/cluster/backup/{id}',
    summary: 'Read a backup job',
    parameters: z.object(ID),
    returns: BackupJobEntry,
    permission: AUDIT,
  }),
  update: endpoint({
    method: 'PUT',
    path: '/cluster/backup/{id}',
    summary: 'Change a backup job',
    description:
      'Sets the settings given and resets those named in `delete`. Giving `vmid`, `all=1` or `pool` replaces the other two. A new `schedule`, or enabling the job, counts its slots from now.',
    parameters: z.object({
      ...ID,
      schedule: scheduleParam().optional(),
      ...JOB_FIELDS,
      delete: commaListParam(
        z.enum(DELETABLE, { error: (issue) => `cannot delete '${String(issue.input)}'` }),
        'Settings to reset, comma-separated.',
      ).optional(),
    }),
    returns: z.null(),
    permission: MODIFY,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/cluster/backup/{id}',
    summary: 'Delete a backup job',
    description: 'Runs it started go on.',
    parameters: z.object(ID),
    returns: z.null(),
    permission: MODIFY,
  }),
};

export type BackupJobEndpoints = typeof BACKUP_JOB_ENDPOINTS;
