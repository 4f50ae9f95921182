import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { MAY_AUDIT } from './ha-params.js';

/*
 * The HA state on PVE's paths and shapes: `/cluster/ha/status`
 * is Corral's HA status (PVE has an index there), `/status/current` PVE's list of entries,
 * `/status/manager_status` PVE's raw manager status.
 */

const QuorumEntry = z.object({
  id: z.literal('quorum'),
  type: z.literal('quorum'),
  node: z.string(),
  status: z.string(),
  quorate: z.union([z.literal(0), z.literal(1)]),
});

const MasterEntry = z.object({
  id: z.literal('master'),
  type: z.literal('master'),
  node: z.string().meta({ description: 'The control-plane replica running the HA manager (`<hostname>:<pid>`).' }),
  status: z.string(),
  timestamp: z.number().int().meta({ description: "Epoch seconds of the manager's last round." }),
});

const LrmEntry = z.object({
  id: z.string().meta({ description: '`lrm:<node>`.' }),
  type: z.literal('lrm'),
  node: z.string(),
  status: z
    .string()
    .meta({ description: '`<node> (active|idle|lost, <time>)`: active, online with HA guests; idle, online without; lost, offline.' }),
  timestamp: z.number().int().meta({ description: 'Epoch seconds the node was last seen.' }),
  lease_until: z
    .number()
    .int()
    .optional()
    .meta({ description: "Corral's: epoch seconds until which the node's agent holds its HA lease." }),
});

const ServiceEntry = z.object({
  id: z.string().meta({ description: '`service:<sid>`.' }),
  type: z.literal('service'),
  sid: z.string(),
  node: z.string().meta({ description: "The guest's node." }),
  crm_state: z.string().meta({ description: "The HA manager's state of the resource." }),
  state: z.string().meta({ description: 'The same as `crm_state`, as PVE shows it.' }),
  request_state: z.string().meta({ description: 'The requested state.' }),
  status: z.string(),
  group: z.string().optional(),
  max_restart: z.number().int(),
  max_relocate: z.number().int(),
  comment: z.string().optional(),
});

export const HaStatusEntry = z.union([QuorumEntry, MasterEntry, LrmEntry, ServiceEntry]);
export type HaStatusEntry = z.infer<typeof HaStatusEntry>;

export const HaManagerStatus = z.object({
  manager_status: z.object({
    master_node: z.string().optional().meta({ description: 'Absent until a manager has run.' }),
    node_status: z
      .record(z.string(), z.enum(['online', 'unknown', 'fence']))
      .meta({ description: 'online; fence: offline with HA guests to recover; unknown: offline without.' }),
    service_status: z.record(z.string(), z.object({ node: z.string(), state: z.string() })),
    timestamp: z.number().int().optional().meta({ description: "Epoch seconds of the manager's last round." }),
  }),
  quorum: z.object({ node: z.string(), quorate: z.enum(['0', '1']) }),
  lrm_status: z.record(
    z.string(),
    z.object({ mode: z.literal('active'), state: z.enum(['active', 'wait_for_agent_lock', 'lost']), timestamp: z.number().int() }),
  ),
});
export type HaManagerStatus = z.infer<typeof HaManagerStatus>;

const status = (path: string, summary: string, description?: string) =>
  endpoint({
    method: 'GET',
    path,
    summary,
    ...(description !== undefined ? { description } : {}),
    parameters: z.object({}),
    returns: z.array(HaStatusEntry),
    permission: MAY_AUDIT,
  });

export const HA_STATUS_ENDPOINTS = {
  index: endpoint({
    method: 'GET',
    path: '/cluster/ha',
    summary: 'The HA sub-resources',
    parameters: z.object({}),
    returns: z.array(z.object({ id: z.string() })),
    permission: MAY_AUDIT,
  }),
  status: status(
    '/cluster/ha/status',
    'The HA status',
    'The entries of `/cluster/ha/status/current` (PVE lists sub-resources here; Corral has the status).',
  ),
  current: status(
    '/cluster/ha/status/current',
    'The HA status as PVE shows it',
    'The quorum first, then the manager when one ran in the last 10 s, then one `lrm:<node>` entry per node and one `service:<sid>` entry per HA resource.',
  ),
  managerStatus: endpoint({
    method: 'GET',
    path: '/cluster/ha/status/manager_status',
    summary: "The HA manager's status, in PVE's raw shape",
    parameters: z.object({}),
    returns: HaManagerStatus,
    permission: MAY_AUDIT,
  }),
};

export type HaStatusEndpoints = typeof HA_STATUS_ENDPOINTS;
