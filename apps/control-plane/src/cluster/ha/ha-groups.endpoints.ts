import { z } from 'zod';
import { commentParam } from '../../access/access-params.js';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, stringParam } from '../../http/params.js';
import { GroupNodesError, parseGroupNodes } from './ha-group-nodes.js';
import { groupNameParam, MAY_AUDIT, MAY_CONFIGURE } from './ha-params.js';
import { deleteParam, digestParam } from '../../http/entry-changes.js';

/*
 * HA groups on PVE's paths and names (`/cluster/ha/groups`; docs/ha.md "Configuration"): the
 * nodes, by priority, where the group's resources may run.
 */

/** `node1:2,node2`, checked for its form here and for the nodes' existence by the service. */
const nodesParam = () => {
  const description = 'The nodes, comma-separated, each with an optional priority (`node1:2,node2`; higher first, none counts as 0).';
  return stringParam({ description, maxLength: 4096 })
    .superRefine((text, context) => {
      try {
        parseGroupNodes(text);
      } catch (error) {
        if (!(error instanceof GroupNodesError)) throw error;
        context.addIssue({ code: 'custom', message: error.message });
      }
    })
    .meta({ description });
};

const SETTINGS = {
  restricted: booleanParam({
    description: "The resources run only on the group's nodes; otherwise on any node when none of them is online (default 0).",
  }).optional(),
  nofailback: booleanParam({
    description: 'A resource stays where it runs when a node of higher priority comes back (default 0).',
  }).optional(),
  comment: commentParam().optional(),
  type: z
    .literal('group', { error: (issue) => `expected group, got '${String(issue.input)}'` })
    .optional()
    .meta({ description: "PVE's section type: `group` only." }),
};

/** The settings `delete` may reset. */
export const DELETABLE = ['restricted', 'nofailback', 'comment'] as const;

export const HaGroupEntry = z.object({
  group: z.string(),
  type: z.literal('group'),
  nodes: z.string().meta({ description: '`node1:2,node2`.' }),
  restricted: z.literal(1).optional(),
  nofailback: z.literal(1).optional(),
  comment: z.string().optional(),
  digest: z.string().meta({ description: 'SHA-1 of the entry, for `digest` in a change.' }),
});
export type HaGroupEntry = z.infer<typeof HaGroupEntry>;

const BASE = '/cluster/ha/groups';
const GROUP = { group: groupNameParam('The HA group.') };

export const HA_GROUP_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: BASE,
    summary: 'List the HA groups',
    parameters: z.object({}),
    returns: z.array(HaGroupEntry),
    permission: MAY_AUDIT,
  }),
  create: endpoint({
    method: 'POST',
    path: BASE,
    summary: 'Create an HA group',
    description: 'Every node named must be joined.',
    parameters: z.object({ ...GROUP, nodes: nodesParam(), ...SETTINGS }),
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
  get: endpoint({
    method: 'GET',
    path: `${BASE}/{group}`,
    summary: 'Read an HA group',
    parameters: z.object(GROUP),
    returns: HaGroupEntry,
    permission: MAY_AUDIT,
  }),
  update: endpoint({
    method: 'PUT',
    path: `${BASE}/{group}`,
    summary: 'Change an HA group',
    description: 'Sets what is given and resets what `delete` names; `nodes` replaces the list.',
    parameters: z.object({
      ...GROUP,
      nodes: nodesParam().optional(),
      ...SETTINGS,
      delete: deleteParam(DELETABLE).optional(),
      digest: digestParam().optional(),
    }),
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: `${BASE}/{group}`,
    summary: 'Delete an HA group',
    description: 'Refused (409) while HA resources name it.',
    parameters: z.object(GROUP),
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
};

export type HaGroupEndpoints = typeof HA_GROUP_ENDPOINTS;
