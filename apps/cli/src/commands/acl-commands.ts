import { defineCommand } from '../command-line/command.js';
import { flagValue, requiredOption } from '../command-line/option-values.js';
import { UsageError } from '../command-line/usage-error.js';

const CHANGE_OPTIONS = {
  role: { value: 'ROLE', description: 'required: the role, e.g. PVEAuditor (or several, comma separated)' },
  user: { value: 'USERID', description: 'for this user, user@realm (one of --user, --group or --token is required)' },
  group: { value: 'GROUP', description: 'for this group' },
  token: { value: 'TOKENID', description: 'for this API token, user@realm!tokenid' },
  propagate: { value: '0|1', description: '1 (default): the role applies below the path too' },
};

// The option for each kind of subject, and PVE's parameter for it.
const SUBJECTS = [
  ['user', 'users'],
  ['group', 'groups'],
  ['token', 'tokens'],
] as const;

/** The one user, group or token an entry is for. */
function subject(who: Partial<Record<(typeof SUBJECTS)[number][0], string>>): Record<string, string> {
  const given = SUBJECTS.flatMap(([option, param]) => (who[option] === undefined ? [] : [[param, who[option]]]));
  if (given.length !== 1) throw new UsageError('give exactly one of --user, --group or --token');
  return Object.fromEntries(given);
}

/** `acl set` and `acl remove`: PVE's one way to change the ACL, `PUT /access/acl`, with `delete=1` to remove. */
function aclChange(name: string, summary: string, remove: boolean) {
  return defineCommand({
    name,
    summary,
    positionals: ['path'],
    options: CHANGE_OPTIONS,
    call: ({ path, role, user, group, token, propagate }) => ({
      method: 'PUT',
      path: '/access/acl',
      params: {
        path,
        roles: requiredOption('role', role),
        ...subject({ user, group, token }),
        propagate: flagValue('propagate', propagate),
        delete: remove ? '1' : undefined,
      },
    }),
  });
}

const listAcl = defineCommand({
  name: 'acl list',
  summary: 'List the ACL entries you may see',
  positionals: [],
  options: {},
  call: () => ({ method: 'GET', path: '/access/acl', params: {} }),
});

export const ACL_COMMANDS = [
  aclChange('acl set', 'Grant a role on an ACL path (/, /vms/100, /storage/local...) to a user, group or API token', false),
  aclChange('acl remove', 'Take back a role granted on an ACL path', true),
  listAcl,
];
