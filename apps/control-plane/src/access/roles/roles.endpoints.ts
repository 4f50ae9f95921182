import { PRIVILEGES, type Privilege } from '@corral/acl';
import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, commaListParam } from '../../http/params.js';
import { roleidParam } from '../access-params.js';

const privilege = z.enum(PRIVILEGES as readonly Privilege[] as [Privilege, ...Privilege[]], {
  error: (issue) => `unknown privilege '${String(issue.input)}'`,
});

/** PVE's `pve-priv-list`. */
const privsParam = (description: string) => commaListParam(privilege, description);

export const RoleListing = z.object({
  roleid: z.string(),
  privs: z.string().meta({ description: 'The privileges, sorted and comma separated.' }),
  special: z.union([z.literal(0), z.literal(1)]).meta({ description: '1 for a built-in role, which cannot be changed or deleted.' }),
});

const SYS_MODIFY_ON_ACCESS = { kind: 'privileges', path: '/access', privileges: ['Sys.Modify'] } as const;

// As PVE lists them: built-in roles first-class in the list, with `special: 1`.
export const listRoles = endpoint({
  method: 'GET',
  path: '/access/roles',
  summary: 'List the roles, built-in and custom',
  parameters: z.object({}),
  returns: z.array(RoleListing),
  permission: { kind: 'authenticated' },
});

export const createRole = endpoint({
  method: 'POST',
  path: '/access/roles',
  summary: 'Create a custom role',
  description: "Ids starting with `PVE` and the built-in roles' ids are reserved.",
  parameters: z.object({
    roleid: roleidParam('The new role.'),
    privs: privsParam('Its privileges, comma separated.').optional(),
  }),
  returns: z.null(),
  permission: SYS_MODIFY_ON_ACCESS,
});

export const getRole = endpoint({
  method: 'GET',
  path: '/access/roles/{roleid}',
  summary: "A role's privileges",
  parameters: z.object({ roleid: roleidParam() }),
  returns: z.record(z.string(), z.literal(1)).meta({ description: 'Each privilege of the role, mapped to 1 (as PVE).' }),
  permission: { kind: 'authenticated' },
});

export const updateRole = endpoint({
  method: 'PUT',
  path: '/access/roles/{roleid}',
  summary: "Replace (or, with `append`, extend) a custom role's privileges",
  parameters: z.object({
    roleid: roleidParam(),
    privs: privsParam(
      'The privileges, comma separated; without `append` they replace the current ones (none given: none left).',
    ).optional(),
    append: booleanParam({ description: 'Add `privs` to the current privileges instead of replacing them.' }).optional(),
  }),
  returns: z.null(),
  permission: SYS_MODIFY_ON_ACCESS,
});

export const deleteRole = endpoint({
  method: 'DELETE',
  path: '/access/roles/{roleid}',
  summary: 'Delete a custom role and every ACL entry granting it',
  parameters: z.object({ roleid: roleidParam() }),
  returns: z.null(),
  permission: SYS_MODIFY_ON_ACCESS,
});
