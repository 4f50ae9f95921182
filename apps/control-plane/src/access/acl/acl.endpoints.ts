import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, commaListParam, stringParam } from '../../http/params.js';
import { groupidParam, roleidParam, useridParam } from '../access-params.js';
import { fullTokenidParam } from '../full-tokenid.js';

export const AclListing = z.object({
  path: z.string(),
  type: z.enum(['user', 'group', 'token']),
  ugid: z.string().meta({ description: 'The user, group or full API token id (`user@realm!tokenid`).' }),
  roleid: z.string(),
  propagate: z.union([z.literal(0), z.literal(1)]).meta({ description: '1 when the role also applies below the path.' }),
});

const changeParams = z.object({
  path: stringParam({
    description: 'The ACL path: `/`, `/vms/100`, `/storage/local`, `/pool/dev`, `/access/groups/ops`...',
    maxLength: 1024,
  }),
  roles: commaListParam(roleidParam(), 'The roles, comma separated.'),
  users: commaListParam(useridParam(), 'Users, comma separated.').optional(),
  groups: commaListParam(groupidParam(), 'Groups, comma separated.').optional(),
  tokens: commaListParam(
    fullTokenidParam('An API token.'),
    "API tokens `user@realm!tokenid` (or Corral's `user@realm=tokenid`), comma separated.",
  ).optional(),
  propagate: booleanParam({ description: 'Whether the roles also apply below the path (default 1).' }).default(true),
});

// PVE's perm-modify (Permissions.Modify, or the allocate privilege of the path's kind).
const PERM_MODIFY = { kind: 'permModify', path: '{path}' } as const;
const WHO = 'At least one of `users`, `groups` or `tokens` is needed.';

export const listAcl = endpoint({
  method: 'GET',
  path: '/access/acl',
  summary: 'List the ACL entries',
  description: 'Only entries on paths where the caller may change the ACL, or all of them with Sys.Audit on `/access`.',
  parameters: z.object({}),
  returns: z.array(AclListing),
  permission: { kind: 'authenticated' },
});

// PVE's one way to change the ACL.
export const updateAcl = endpoint({
  method: 'PUT',
  path: '/access/acl',
  summary: 'Grant (or, with `delete`, revoke) roles on a path',
  description: `${WHO} Without Permissions.Modify on the path, only roles whose privileges the caller holds there may be granted or revoked.`,
  parameters: changeParams.extend({ delete: booleanParam({ description: 'Revoke the roles instead of granting them.' }).default(false) }),
  returns: z.null(),
  permission: PERM_MODIFY,
});

// Corral's: POST adds.
export const addAcl = endpoint({
  method: 'POST',
  path: '/access/acl',
  summary: 'Grant roles on a path',
  description: `${WHO} Granting an entry that exists updates its \`propagate\`.`,
  parameters: changeParams,
  returns: z.null(),
  permission: PERM_MODIFY,
});

// Corral's: DELETE removes.
export const removeAcl = endpoint({
  method: 'DELETE',
  path: '/access/acl',
  summary: 'Revoke roles on a path',
  description: `${WHO} Revoking an entry that does not exist is not an error.`,
  parameters: changeParams,
  returns: z.null(),
  permission: PERM_MODIFY,
});
