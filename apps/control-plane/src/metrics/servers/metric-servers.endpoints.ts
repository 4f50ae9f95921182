import { isIP } from 'node:net';
import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { deleteParam, digestParam, SetFlag } from '../../http/entry-changes.js';
import { booleanParam, commaListParam, configIdParam, enumParam, integerParam, stringParam } from '../../http/params.js';

/*
 * External metric servers on PVE's paths and names (`/cluster/metrics/server`; docs/monitoring.md),
 * and PVE 9's export of the newest figures (`/cluster/metrics/export`).
 */

const AUDIT: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] };
const MODIFY: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Modify'] };

const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
/** PVE's `graphite-path`: dot-separated words of letters, digits and inner dashes. */
const GRAPHITE_PATH = /^([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/;
/** What an HTTP header's value may carry: visible ASCII, no spaces. */
const TOKEN = /^[\x21-\x7e]+$/;

/** PVE's `address`: an IP address or a DNS name. */
const serverParam = () =>
  stringParam({ description: 'The DNS name or IP address of the server.', maxLength: 253 }).refine(
    (text) => isIP(text) !== 0 || DNS_NAME.test(text),
    'must be an IP address or a DNS name',
  );

const SETTINGS = {
  port: integerParam({ description: 'Its port.', min: 1, max: 65535 }),
  disable: booleanParam({ description: 'Send it nothing.' }).optional(),
  mtu: integerParam({
    description: 'UDP: the largest datagram in bytes, headers included (default 1500).',
    min: 512,
    max: 65536,
  }).optional(),
  timeout: integerParam({
    description:
      'Seconds a connection or an HTTP write may take before it counts as failed (default 1; PVE also takes 0, Corral does not).',
    min: 1,
    max: 60,
  }).optional(),
  influxdbproto: enumParam(['udp', 'http', 'https'], 'InfluxDB: the line protocol over UDP (the default), or the HTTP v2 API.').optional(),
  organization: stringParam({ description: 'InfluxDB HTTP: the organization (default proxmox).', minLength: 1, maxLength: 256 }).optional(),
  bucket: stringParam({ description: 'InfluxDB HTTP: the bucket (default proxmox).', minLength: 1, maxLength: 256 }).optional(),
  token: stringParam({
    description: "InfluxDB HTTP: the API token (or `user:password` for InfluxDB 1.8's v2 API). Write-only: reads never show it.",
    maxLength: 4096,
    pattern: TOKEN,
    patternHint: 'must be printable ASCII without spaces',
  }).optional(),
  'api-path-prefix': stringParam({
    description: 'InfluxDB HTTP: a path inserted before `/api/v2/`, for a server behind a reverse proxy.',
    maxLength: 256,
    pattern: /^[A-Za-z0-9/._~-]*$/,
    patternHint: 'must be a URL path (letters, digits, /, ., _, ~, -)',
  }).optional(),
  'max-body-size': integerParam({ description: 'InfluxDB HTTP: the most bytes per write (default 25000000).', min: 1 }).optional(),
  'verify-certificate': booleanParam({ description: "InfluxDB HTTPS: check the server's certificate (default 1)." }).optional(),
  proto: enumParam(['udp', 'tcp'], 'Graphite: UDP (the default) or TCP.').optional(),
  path: stringParam({
    description: 'Graphite: the root of every metric path (default proxmox).',
    maxLength: 256,
    pattern: GRAPHITE_PATH,
    patternHint: 'must be dot-separated words of letters, digits and inner dashes',
  }).optional(),
};

export const DELETABLE = [
  'disable',
  'mtu',
  'timeout',
  'influxdbproto',
  'organization',
  'bucket',
  'token',
  'api-path-prefix',
  'max-body-size',
  'verify-certificate',
  'proto',
  'path',
] as const;

const ID = { id: configIdParam('The metric server.') };

const Status = {
  error: z.string().optional().meta({ description: "Corral's: why the newest send failed, while it is failing." }),
  'failing-since': z.number().int().optional().meta({ description: "Corral's: since when (epoch seconds) it has been failing." }),
};

export const MetricServerSummary = z.object({
  id: z.string(),
  type: z.string(),
  server: z.string(),
  port: z.number().int(),
  disable: z.union([z.literal(0), z.literal(1)]),
  ...Status,
});
export type MetricServerSummary = z.infer<typeof MetricServerSummary>;

export const MetricServerEntry = z.object({
  id: z.string(),
  type: z.string(),
  server: z.string(),
  port: z.number().int(),
  disable: SetFlag,
  mtu: z.number().int().optional(),
  timeout: z.number().int().optional(),
  influxdbproto: z.string().optional(),
  organization: z.string().optional(),
  bucket: z.string().optional(),
  'api-path-prefix': z.string().optional(),
  'max-body-size': z.number().int().optional(),
  'verify-certificate': z.union([z.literal(0), z.literal(1)]).optional(),
  proto: z.string().optional(),
  path: z.string().optional(),
  ...Status,
  digest: z.string().meta({ description: 'SHA-1 of the settings, for `digest` in a change.' }),
});
export type MetricServerEntry = z.infer<typeof MetricServerEntry>;

export const ExportedMetric = z.object({
  id: z.string().meta({ description: '`node/<node>`, `qemu/<vmid>`, `lxc/<vmid>` or `storage/<node>/<storage>`.' }),
  metric: z.string(),
  timestamp: z.number().int(),
  type: z.enum(['gauge', 'counter', 'derive']),
  value: z.number(),
});
export type ExportedMetric = z.infer<typeof ExportedMetric>;

const BASE = '/cluster/metrics/server';

export const METRIC_SERVER_ENDPOINTS = {
  index: endpoint({
    method: 'GET',
    path: '/cluster/metrics',
    summary: 'The metrics index',
    parameters: z.object({}),
    returns: z.array(z.object({ name: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  list: endpoint({
    method: 'GET',
    path: BASE,
    summary: 'List the external metric servers',
    parameters: z.object({}),
    returns: z.array(MetricServerSummary),
    permission: AUDIT,
  }),
  create: endpoint({
    method: 'POST',
    path: `${BASE}/{id}`,
    summary: 'Add an external metric server',
    description:
      'InfluxDB (line protocol over UDP, or the HTTP v2 API with `token`, `organization` and `bucket`) or Graphite (plaintext over UDP or TCP). Unless it is disabled, the server is tried first, as PVE tries it: an HTTP server must answer `GET /health`, a TCP one accept a connection, a UDP one have an address; otherwise nothing is added.',
    parameters: z.object({
      ...ID,
      type: enumParam(['influxdb', 'graphite', 'opentelemetry'], 'The kind of server (`opentelemetry` is not built).'),
      server: serverParam(),
      ...SETTINGS,
    }),
    returns: z.null(),
    permission: MODIFY,
  }),
  get: endpoint({
    method: 'GET',
    path: `${BASE}/{id}`,
    summary: 'Read an external metric server',
    parameters: z.object(ID),
    returns: MetricServerEntry,
    permission: AUDIT,
  }),
  update: endpoint({
    method: 'PUT',
    path: `${BASE}/{id}`,
    summary: 'Change an external metric server',
    description: 'Sets what is given and resets what `delete` names; the server is tried again as on creation.',
    parameters: z.object({
      ...ID,
      server: serverParam().optional(),
      ...SETTINGS,
      port: SETTINGS.port.optional(),
      delete: deleteParam(DELETABLE).optional(),
      digest: digestParam().optional(),
    }),
    returns: z.null(),
    permission: MODIFY,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: `${BASE}/{id}`,
    summary: 'Remove an external metric server',
    parameters: z.object(ID),
    returns: z.null(),
    permission: MODIFY,
  }),
  export: endpoint({
    method: 'GET',
    path: '/cluster/metrics/export',
    summary: "The cluster's newest figures, and those of the last 30 minutes",
    description:
      "PVE 9's pull interface: each node's, guest's and storage's figures as gauges and counters (`derive`), read every 10 s. `history=1` adds the generations of the last 30 minutes that this replica read.",
    parameters: z.object({
      history: booleanParam({ description: 'Also the earlier generations kept (30 minutes), or those after `start-time`.' }).optional(),
      'local-only': booleanParam({ description: 'Only the nodes whose agents this replica holds.' }).optional(),
      'node-list': commaListParam(stringParam({ description: 'A node.' }), 'Only these nodes, comma-separated.').optional(),
      'start-time': integerParam({ description: 'Only figures read after this time (epoch seconds).', min: 0 }).optional(),
    }),
    returns: z.object({ data: z.array(ExportedMetric).meta({ description: 'Sorted by timestamp.' }) }),
    permission: AUDIT,
  }),
};

export type MetricServerEndpoints = typeof METRIC_SERVER_ENDPOINTS;
