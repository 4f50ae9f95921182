import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';

export const Realm = z.object({
  realm: z.string(),
  type: z.string().meta({ description: '`pam` and `pve`: local users; `oidc`: users of an OAuth 2.0 issuer (bearer tokens).' }),
  comment: z.string(),
});

export const accessIndex = endpoint({
  method: 'GET',
  path: '/access',
  summary: 'The access API, one entry per subdirectory (as PVE)',
  parameters: z.object({}),
  returns: z.array(z.object({ subdir: z.string() })),
  permission: { kind: 'authenticated' },
});

// facts.md 1.5: PVE's login box reads it before anyone is logged in.
export const listDomains = endpoint({
  method: 'GET',
  path: '/access/domains',
  summary: 'The authentication realms',
  parameters: z.object({}),
  returns: z.array(Realm),
  permission: { kind: 'public' },
});
