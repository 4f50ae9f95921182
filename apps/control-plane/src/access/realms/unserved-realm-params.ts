import { z } from 'zod';
import { badParam } from '../../errors/resource-errors.js';

/**
 * PVE's realm settings that Corral does not serve, declared so that each is a 400 saying why
 * rather than an unknown parameter: LDAP and Active Directory realms are not built, OpenID Connect
 * login is not built (Corral's `oidc` realms take bearer tokens of the configured issuer), and
 * neither is two-factor authentication.
 */

const DIRECTORY = [
  'base_dn',
  'bind_dn',
  'capath',
  'case-sensitive',
  'cert',
  'certkey',
  'check-connection',
  'domain',
  'filter',
  'group_classes',
  'group_dn',
  'group_filter',
  'group_name_attr',
  'mode',
  'password',
  'port',
  'secure',
  'server1',
  'server2',
  'sslversion',
  'sync-defaults-options',
  'sync_attributes',
  'user_attr',
  'user_classes',
  'verify',
] as const;

const OPENID_LOGIN = [
  'issuer-url',
  'client-id',
  'client-key',
  'username-claim',
  'scopes',
  'prompt',
  'acr-values',
  'query-userinfo',
  'groups-claim',
  'groups-autocreate',
  'groups-overwrite',
] as const;

const UNSERVED = [...DIRECTORY, ...OPENID_LOGIN, 'tfa'] as const;
type Unserved = (typeof UNSERVED)[number];

function why(key: Unserved): string {
  if (key === 'tfa') return 'two-factor authentication is not built';
  if ((OPENID_LOGIN as readonly string[]).includes(key)) {
    return `'${key}' is a setting of OpenID Connect login, which is not built: Corral's oidc realms accept bearer tokens of the issuer CORRAL_OIDC_ISSUER names`;
  }
  return `'${key}' is a setting of ldap and ad realms, which Corral does not serve`;
}

/** The unserved settings as optional parameters of any type, for a realm endpoint's parameter schema. */
export const UNSERVED_REALM_PARAMS = Object.fromEntries(
  UNSERVED.map((key) => [
    key,
    z
      .unknown()
      .optional()
      .meta({ description: `Refused: ${why(key)}.` }),
  ]),
) as {
  [K in Unserved]: z.ZodOptional<z.ZodUnknown>;
};

/** A 400 naming the first unserved setting given. */
export function refuseUnserved(params: Readonly<Record<string, unknown>>): void {
  const given = UNSERVED.find((key) => params[key] !== undefined);
  if (given !== undefined) throw badParam(given, why(given));
}
