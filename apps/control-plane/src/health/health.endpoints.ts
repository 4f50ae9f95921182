import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';

// For load balancers and orchestrators: asked without credentials, and never about anything but this replica.
export const HEALTH_ENDPOINTS = {
  live: endpoint({
    method: 'GET',
    path: '/health/live',
    summary: 'Whether this control-plane process answers at all (a liveness probe): it does nothing else',
    parameters: z.object({}),
    returns: z.object({ status: z.literal('live') }),
    permission: { kind: 'public' },
  }),
  ready: endpoint({
    method: 'GET',
    path: '/health/ready',
    summary: 'Whether this replica can serve the API (a readiness probe)',
    description:
      'Ready means: the database answers within 2 s, every migration this version knows is applied, and the replica is not shutting down. Otherwise 503 with a message naming what is not so.',
    parameters: z.object({}),
    returns: z.object({ status: z.literal('ready') }),
    permission: { kind: 'public' },
  }),
};
