import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { stringParam } from '../../http/params.js';
import { fullTokenidParam } from '../full-tokenid.js';

// Telmate calls it with `path=/` at start and reads the keys of `data["/"]`.
export const getPermissions = endpoint({
  method: 'GET',
  path: '/access/permissions',
  summary: "A user's or token's effective privileges, per path",
  description:
    'Privilege → 1 when it propagates below the path, else 0. Without `path`: `/`, `/access`, `/access/groups`, `/nodes`, `/pool`, `/sdn`, `/storage`, `/vms` and every ACL path, where anything is held. About another user (other than an own token) needs Sys.Audit on `/access`.',
  parameters: z.object({
    userid: fullTokenidParam('A user, or a full API token id `user@realm!tokenid`; default: the caller.', { orUser: true }).optional(),
    path: stringParam({ description: 'Only this path.', maxLength: 1024 }).optional(),
  }),
  returns: z.record(z.string(), z.record(z.string(), z.union([z.literal(0), z.literal(1)]))),
  permission: { kind: 'authenticated' },
});
