import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { commentParam, groupidParam } from '../access-params.js';

export const GroupListEntry = z.object({
  groupid: z.string(),
  comment: z.string().optional(),
  users: z.string().meta({ description: 'The members, comma-separated.' }),
});

export const GroupRecord = z.object({
  comment: z.string().optional(),
  members: z.array(z.string()),
});

const groupAllocate: Check = { kind: 'privileges', path: '/access/groups', privileges: ['Group.Allocate'] };

export const listGroups = endpoint({
  method: 'GET',
  path: '/access/groups',
  summary: 'List groups',
  description: 'Only groups the caller holds User.Modify, Sys.Audit or Group.Allocate on (`/access/groups/<group>`).',
  parameters: z.object({}),
  returns: z.array(GroupListEntry),
  permission: { kind: 'authenticated' },
});

export const createGroup = endpoint({
  method: 'POST',
  path: '/access/groups',
  summary: 'Create a group',
  parameters: z.object({ groupid: groupidParam(), comment: commentParam().optional() }),
  returns: z.null(),
  permission: groupAllocate,
});

// PVE checks `/access/groups`; the group's own path also does, so that a group the list shows can be read.
export const getGroup = endpoint({
  method: 'GET',
  path: '/access/groups/{groupid}',
  summary: 'Read a group',
  parameters: z.object({ groupid: groupidParam() }),
  returns: GroupRecord,
  permission: {
    kind: 'anyOf',
    checks: [
      { kind: 'privileges', path: '/access/groups', privileges: ['Sys.Audit', 'Group.Allocate'], any: true },
      { kind: 'privileges', path: '/access/groups/{groupid}', privileges: ['Sys.Audit', 'Group.Allocate'], any: true },
    ],
  },
});

export const updateGroup = endpoint({
  method: 'PUT',
  path: '/access/groups/{groupid}',
  summary: 'Update a group',
  description: 'An empty `comment` clears it.',
  parameters: z.object({ groupid: groupidParam(), comment: commentParam().optional() }),
  returns: z.null(),
  permission: groupAllocate,
});

export const deleteGroup = endpoint({
  method: 'DELETE',
  path: '/access/groups/{groupid}',
  summary: 'Delete a group',
  description: "Also removes its memberships and the group's ACL entries.",
  parameters: z.object({ groupid: groupidParam() }),
  returns: z.null(),
  permission: groupAllocate,
});
