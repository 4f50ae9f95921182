import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';

export const getOpenApiDocument = endpoint({
  method: 'GET',
  path: '/openapi.json',
  summary: 'The OpenAPI 3.1 document of this API',
  description: 'Served as it is, without the `data` envelope, so that OpenAPI tools can read it directly.',
  parameters: z.object({}),
  returns: z.record(z.string(), z.unknown()),
  permission: { kind: 'public' },
  envelope: false,
});
