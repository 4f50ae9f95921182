import { z } from 'zod';
import { commentParam } from '../../access/access-params.js';
import { endpoint } from '../../http/endpoint.js';
import { integerParam } from '../../http/params.js';
import { groupNameParam, MAY_AUDIT, MAY_CONFIGURE, resourceTypeParam, sidParam } from './ha-params.js';
import { deleteParam, digestParam } from '../../http/entry-changes.js';

/*
 * HA resources on PVE's paths and names (`/cluster/ha/resources`; docs/ha.md "Configuration"):
 * a guest the HA manager starts, stops and recovers according to its requested state.
 */

const STATES = ['started', 'stopped', 'enabled', 'disabled', 'ignored'] as const;

const stateParam = () =>
  z
    .enum(STATES, { error: (issue) => `expected started, stopped, enabled, disabled or ignored, got '${String(issue.input)}'` })
    .meta({ description: 'The requested state (default `started`; `enabled` is taken as `started`, as PVE does).' });

const attemptsParam = (description: string) => integerParam({ description, min: 0, max: 10 });

const SETTINGS = {
  state: stateParam().optional(),
  group: groupNameParam('The HA group whose nodes the guest may run on.').optional(),
  max_restart: attemptsParam('Restarts on the same node after a failed start (default 1).').optional(),
  max_relocate: attemptsParam('Moves to another node after the restarts failed (default 1).').optional(),
  comment: commentParam().optional(),
};

/** The settings `delete` may reset. */
export const DELETABLE = ['state', 'group', 'max_restart', 'max_relocate', 'comment'] as const;

export const HaResourceEntry = z.object({
  sid: z.string().meta({ description: '`vm:<vmid>` or `ct:<vmid>`.' }),
  type: z.enum(['vm', 'ct']),
  state: z.enum(['started', 'stopped', 'disabled', 'ignored']),
  group: z.string().optional(),
  max_restart: z.number().int(),
  max_relocate: z.number().int(),
  comment: z.string().optional(),
  digest: z.string().meta({ description: 'SHA-1 of the entry, for `digest` in a change.' }),
});
export type HaResourceEntry = z.infer<typeof HaResourceEntry>;

const BASE = '/cluster/ha/resources';
const SID = { sid: sidParam() };

export const HA_RESOURCE_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: BASE,
    summary: 'List the HA resources',
    parameters: z.object({ type: resourceTypeParam('Only resources of this type.').optional() }),
    returns: z.array(HaResourceEntry),
    permission: MAY_AUDIT,
  }),
  create: endpoint({
    method: 'POST',
    path: BASE,
    summary: 'Put a guest under HA',
    description:
      'The guest must exist and not be a template; a requested state other than `ignored` is refused while an operation holds its lock.',
    parameters: z.object({
      sid: sidParam("The guest: `vm:<vmid>`, `ct:<vmid>`, or the vmid alone (its type is then the guest's)."),
      type: resourceTypeParam('The resource type, when `sid` is the vmid alone.').optional(),
      ...SETTINGS,
    }),
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
  get: endpoint({
    method: 'GET',
    path: `${BASE}/{sid}`,
    summary: 'Read an HA resource',
    parameters: z.object(SID),
    returns: HaResourceEntry,
    permission: MAY_AUDIT,
  }),
  update: endpoint({
    method: 'PUT',
    path: `${BASE}/{sid}`,
    summary: 'Change an HA resource',
    description:
      "Sets what is given and resets what `delete` names. A change of the requested state is refused while an operation holds the guest's lock, unless to `ignored`.",
    parameters: z.object({ ...SID, ...SETTINGS, delete: deleteParam(DELETABLE).optional(), digest: digestParam().optional() }),
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: `${BASE}/{sid}`,
    summary: 'Take a guest out of HA',
    description: 'The guest stays as it is, running or not.',
    parameters: z.object(SID),
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
};

export type HaResourceEndpoints = typeof HA_RESOURCE_ENDPOINTS;
