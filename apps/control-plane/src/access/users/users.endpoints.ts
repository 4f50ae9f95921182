import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, commaListParam } from '../../http/params.js';
import { useridParam } from '../access-params.js';
import { passwordParam, TEXT_FIELDS, userFieldParams } from './user-params.js';

const flag = () => z.union([z.literal(0), z.literal(1)]);

const TokenInfo = z.object({
  privsep: flag().meta({ description: "1: the token has its own ACL entries, intersected with its user's privileges." }),
  expire: z.number().int().meta({ description: 'Expiry as epoch seconds; 0 means never.' }),
  comment: z.string().optional(),
});

// PVE's user record: integers 1/0 for booleans, absent optional fields left out.
const userRecordFields = {
  enable: flag(),
  expire: z.number().int().meta({ description: 'Expiry as epoch seconds; 0 means never.' }),
  firstname: z.string().optional(),
  lastname: z.string().optional(),
  email: z.string().optional(),
  comment: z.string().optional(),
  keys: z.string().optional(),
};

export const UserListEntry = z.object({
  userid: z.string(),
  ...userRecordFields,
  'realm-type': z.string().optional().meta({ description: "The type of the user's realm." }),
  groups: z.string().optional().meta({ description: 'With `full=1`: the groups, comma-separated.' }),
  tokens: z
    .array(TokenInfo.extend({ tokenid: z.string() }))
    .optional()
    .meta({ description: 'With `full=1`: the API tokens.' }),
});

export const UserRecord = z.object({
  ...userRecordFields,
  groups: z.array(z.string()),
  tokens: z.record(z.string(), TokenInfo).meta({ description: 'The API tokens, keyed by token id.' }),
});

/** PVE `userid-group`: the privileges on `/access/groups`, or on a group the user named by `userid` is in. */
export const userAdmin = (privileges: ['User.Modify'] | ['User.Modify', 'Sys.Audit']): Check => ({
  kind: 'groups',
  param: 'userid',
  privileges,
  any: true,
});
/** PVE `userid-param Realm.AllocateUser`: `{realm}` is the realm of the `userid` parameter. */
export const realmAllocate: Check = { kind: 'privileges', path: '/access/realm/{realm}', privileges: ['Realm.AllocateUser'] };
// PVE `groups_param`: User.Modify on each group given, or on /access/groups when none is.
const givenGroupsAdmin: Check = { kind: 'groups', param: 'groups', privileges: ['User.Modify'] };

export const listUsers = endpoint({
  method: 'GET',
  path: '/access/users',
  summary: 'List users',
  description:
    "Only users the caller may see: with User.Modify or Sys.Audit on `/access/groups` or on a group of the user; the caller's own user always.",
  parameters: z.object({
    enabled: booleanParam({ description: 'Only enabled (1) or only disabled (0) users.' }).optional(),
    full: booleanParam({ description: 'Include groups and API tokens.' }).optional(),
  }),
  returns: z.array(UserListEntry),
  permission: { kind: 'authenticated' },
});

// `userid` and `password`; the other fields are PVE's.
export const createUser = endpoint({
  method: 'POST',
  path: '/access/users',
  summary: 'Create a user',
  description:
    'Without `password` the user cannot log in with one (users of an oidc realm never can). Needs Realm.AllocateUser on `/access/realm/<realm>` and User.Modify on each group given (on `/access/groups` when none is).',
  parameters: z.object({
    userid: useridParam(),
    password: passwordParam('Initial password.').optional(),
    ...userFieldParams,
  }),
  returns: z.null(),
  permission: { kind: 'allOf', checks: [realmAllocate, givenGroupsAdmin] },
});

export const getUser = endpoint({
  method: 'GET',
  path: '/access/users/{userid}',
  summary: 'Read a user',
  parameters: z.object({ userid: useridParam() }),
  returns: UserRecord,
  permission: { kind: 'anyOf', checks: [{ kind: 'self', param: 'userid' }, userAdmin(['User.Modify', 'Sys.Audit'])] },
});

export const updateUser = endpoint({
  method: 'PUT',
  path: '/access/users/{userid}',
  summary: 'Update a user',
  description:
    'An empty value, or its name in `delete`, clears a text field. `groups` replaces the groups (adds to them with `append=1`). As in PVE, without User.Modify on `/access/groups` the caller must name groups it holds User.Modify on. root@pam cannot be disabled or given an expiry.',
  parameters: z.object({
    userid: useridParam(),
    ...userFieldParams,
    append: booleanParam({ description: 'With `groups`: add to the groups instead of replacing them.' }).optional(),
    delete: commaListParam(
      z.enum(TEXT_FIELDS, { error: (issue) => `'${String(issue.input)}' cannot be deleted (only ${TEXT_FIELDS.join(', ')})` }),
      `Text fields to clear: ${TEXT_FIELDS.join(', ')}.`,
    ).optional(),
  }),
  returns: z.null(),
  permission: { kind: 'allOf', checks: [userAdmin(['User.Modify']), givenGroupsAdmin] },
});

export const deleteUser = endpoint({
  method: 'DELETE',
  path: '/access/users/{userid}',
  summary: 'Delete a user',
  description:
    'Also deletes its API tokens, group memberships and the ACL entries of the user and of its tokens. root@pam cannot be deleted.',
  parameters: z.object({ userid: useridParam() }),
  returns: z.null(),
  permission: { kind: 'allOf', checks: [realmAllocate, userAdmin(['User.Modify'])] },
});
