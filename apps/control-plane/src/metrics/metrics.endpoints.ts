import { Registry } from 'prom-client';
import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';

export const getMetrics = endpoint({
  method: 'GET',
  path: '/metrics',
  summary: "This replica's metrics for Prometheus",
  description:
    "The Prometheus text format: this replica's HTTP requests by route and status with their latency, the agents it holds, its database connections, and every node's and guest's figures as `/cluster/resources` shows them (labels `node`, `vmid`, `type`, `name`). Served as it is, without the `data` envelope; Prometheus sends an API token as `authorization: {type: PVEAPIToken, credentials: <user>!<token>=<secret>}`.",
  parameters: z.object({}),
  returns: z.string(),
  permission: { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] },
  envelope: false,
  contentType: Registry.PROMETHEUS_CONTENT_TYPE,
});
