import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { stringParam } from '../../http/params.js';
import { useridParam } from '../access-params.js';
import { passwordParam } from './user-params.js';
import { realmAllocate, userAdmin } from './users.endpoints.js';

// PVE 8+: callers other than root@pam confirm with their own current password; tokens may not call it.
export const changePassword = endpoint({
  method: 'PUT',
  path: '/access/password',
  summary: "Change a user's password",
  description:
    "Users change their own password; with Realm.AllocateUser on the user's realm and User.Modify on one of its groups (or on `/access/groups`), another user's. Callers other than root@pam confirm with their own current password. Only root@pam changes root@pam's password, and only root@pam changes another pam user's. Takes effect at once: the old password no longer authenticates.",
  parameters: z.object({
    userid: useridParam(),
    password: passwordParam('The new password.'),
    'confirmation-password': stringParam({
      description: 'The current password of the caller (not needed for root@pam).',
      maxLength: 64,
    }).optional(),
  }),
  returns: z.null(),
  permission: {
    kind: 'anyOf',
    checks: [
      { kind: 'self', param: 'userid' },
      { kind: 'allOf', checks: [realmAllocate, userAdmin(['User.Modify'])] },
    ],
  },
  allowToken: false,
});
