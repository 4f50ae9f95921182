import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';

export const accessIndex = endpoint({
  method: 'GET',
  path: '/access',
  summary: 'The access API, one entry per subdirectory (as PVE)',
  parameters: z.object({}),
  returns: z.array(z.object({ subdir: z.string() })),
  permission: { kind: 'authenticated' },
});
