import { z } from 'zod';
import { deleteParam, digestParam, SetFlag } from '../../http/entry-changes.js';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, stringParam } from '../../http/params.js';
import { commentParam, REALM_PATTERN } from '../access-params.js';
import { UNSERVED_REALM_PARAMS } from './unserved-realm-params.js';

/** PVE's realm types, and Corral's own name for the bearer-token realm. */
export const REALM_TYPES = ['pam', 'pve', 'openid', 'oidc', 'ldap', 'ad'] as const;

const TYPE_TEXT = '`pam` and `pve`: local users; `oidc`: users of the OAuth 2.0 issuer CORRAL_OIDC_ISSUER names (bearer tokens).';

export const RealmListEntry = z.object({
  realm: z.string(),
  type: z.string().meta({ description: TYPE_TEXT }),
  comment: z.string().optional(),
  default: SetFlag.meta({ description: 'The realm the login box preselects.' }),
});

export const RealmRecord = z.object({
  type: z.string().meta({ description: TYPE_TEXT }),
  comment: z.string().optional(),
  default: SetFlag.meta({ description: 'The realm the login box preselects.' }),
  autocreate: z
    .union([z.literal(0), z.literal(1)])
    .optional()
    .meta({ description: '`oidc` realms: 1 when a user is created the first time a valid token names one.' }),
  'issuer-url': z.string().optional().meta({ description: 'The realm CORRAL_OIDC_REALM names: the issuer whose tokens it accepts.' }),
  'client-id': z.string().optional().meta({ description: 'The realm CORRAL_OIDC_REALM names: the audience its tokens must have.' }),
  'username-claim': z.string().optional().meta({ description: 'The realm CORRAL_OIDC_REALM names: the claim holding the user name.' }),
  digest: z.string().meta({ description: 'SHA-1 of the entry, for `digest` in a change.' }),
});

const realmParam = () =>
  stringParam({
    description: 'The realm.',
    maxLength: 32,
    pattern: REALM_PATTERN,
    patternHint: 'must be a letter followed by letters, digits, ., _ or -',
  });

const SETTINGS = {
  comment: commentParam().optional(),
  default: booleanParam({ description: 'Make it the realm the login box preselects (the previous one stops being it).' }).optional(),
  autocreate: booleanParam({ description: '`oidc` realms only: create a user the first time a valid bearer token names one.' }).optional(),
  ...UNSERVED_REALM_PARAMS,
};

/** The settings `delete` may reset. */
const DELETABLE = ['comment', 'default', 'autocreate'] as const;

const realmAllocate: Check = { kind: 'privileges', path: '/access/realm', privileges: ['Realm.Allocate'] };

// PVE's login box reads it before anyone is logged in.
export const listDomains = endpoint({
  method: 'GET',
  path: '/access/domains',
  summary: 'The authentication realms',
  parameters: z.object({}),
  returns: z.array(RealmListEntry),
  permission: { kind: 'public' },
});

export const getDomain = endpoint({
  method: 'GET',
  path: '/access/domains/{realm}',
  summary: "A realm's settings",
  parameters: z.object({ realm: realmParam() }),
  returns: RealmRecord,
  permission: { kind: 'privileges', path: '/access/realm', privileges: ['Realm.Allocate', 'Sys.Audit'], any: true },
});

export const createDomain = endpoint({
  method: 'POST',
  path: '/access/domains',
  summary: 'Add a realm',
  description:
    "Only `openid` (stored as Corral's `oidc`) realms are created: `pam` and `pve` are built in, and `ldap` and `ad` are not served (a 400 saying so, as for their settings).",
  parameters: z.object({
    realm: realmParam(),
    type: z
      .enum(REALM_TYPES, { error: (issue) => `expected one of ${REALM_TYPES.join(', ')}, got '${String(issue.input)}'` })
      .meta({ description: 'The realm type.' }),
    ...SETTINGS,
  }),
  returns: z.null(),
  permission: realmAllocate,
});

export const updateDomain = endpoint({
  method: 'PUT',
  path: '/access/domains/{realm}',
  summary: "Change a realm's settings",
  description: 'Sets what is given and resets what `delete` names.',
  parameters: z.object({ realm: realmParam(), ...SETTINGS, delete: deleteParam(DELETABLE).optional(), digest: digestParam().optional() }),
  returns: z.null(),
  permission: realmAllocate,
});

export const deleteDomain = endpoint({
  method: 'DELETE',
  path: '/access/domains/{realm}',
  summary: 'Remove a realm',
  description: 'Refused for the built-in `pam` and `pve`, for the realm CORRAL_OIDC_REALM names, and while users of the realm exist.',
  parameters: z.object({ realm: realmParam() }),
  returns: z.null(),
  permission: realmAllocate,
});
