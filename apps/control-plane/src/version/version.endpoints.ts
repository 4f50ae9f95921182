import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';

export const VersionInfo = z.object({
  version: z.string().meta({ description: 'The Proxmox VE version whose API Corral speaks; clients pick their code paths by it.' }),
  release: z.string().meta({ description: 'Major and minor of `version`.' }),
  repoid: z.string().meta({ description: 'The commit Corral was built from (16 hex digits; zeros when built outside git).' }),
  'corral-version': z.string().meta({ description: "Corral's own version." }),
});
export type VersionInfo = z.infer<typeof VersionInfo>;

// Asked without credentials.
export const getVersion = endpoint({
  method: 'GET',
  path: '/version',
  summary: 'API version information',
  parameters: z.object({}),
  returns: VersionInfo,
  permission: { kind: 'public' },
});
