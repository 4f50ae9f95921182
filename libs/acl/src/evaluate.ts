import { normalizeAclPath, pathChain } from './acl-path.js';
import type { Privilege } from './privileges.js';
import { NO_ACCESS, type Role } from './roles.js';

/** One ACL entry: a role granted to a user, a group or an API token on a path. */
export interface AclEntry {
  readonly path: string;
  readonly type: 'user' | 'group' | 'token';
  /** `user@realm`, a group id, or a full token id `user@realm!tokenid`. */
  readonly ugid: string;
  readonly roleid: string;
  /** Whether the entry also applies below its path. */
  readonly propagate: boolean;
}

/** Who is asking. A token acts with its own ACL entries intersected with its user's, unless `privsep` is off. */
export type Subject =
  | { readonly kind: 'user'; readonly userid: string; readonly groups: readonly string[] }
  | {
      readonly kind: 'token';
      readonly userid: string;
      readonly groups: readonly string[];
      readonly tokenid: string;
      readonly privsep: boolean;
    };

/** What the evaluation needs of the access configuration. */
export interface AccessConfig {
  readonly acl: readonly AclEntry[];
  readonly roles: ReadonlyMap<string, Role>;
  /**
   * The pools of each pool member, by its ACL path (`/vms/100`, `/storage/local`): a guest is in
   * at most one pool, a storage may be in several (PVE's user.cfg).
   */
  readonly memberPools: ReadonlyMap<string, readonly string[]>;
}

/** Privileges on a path, each with whether it also propagates further down (`/access/permissions`). */
export type Privileges = ReadonlyMap<Privilege, boolean>;

export const SUPERUSER = 'root@pam';

/**
 * The subject's privileges on `path`, as PVE computes them:
 * - root@pam holds every privilege everywhere (a token of root@pam does not: it is a token);
 * - the path is walked from `/` down; at each level the entries for the most specific holder that
 *   has any there (the token, else the user, else the union of the user's groups) replace what was
 *   inherited; above the target only propagating entries count;
 * - NoAccess in the result cancels everything;
 * - a guest or storage in pools also gets the roles granted on each `/pool/<pool>`, not propagating,
 *   unless the regular walk ended in NoAccess; a NoAccess on a pool wins over the regular roles;
 * - a privilege-separated token gets the intersection of its own privileges and its user's,
 *   propagating only where both do; without separation it gets its user's.
 */
export function effectivePrivileges(config: AccessConfig, subject: Subject, path: string): Privileges {
  const asUser = privilegesOf(config, { holders: userHolders(subject), userid: subject.userid }, path);
  if (subject.kind === 'user' || !subject.privsep) return asUser;
  const asToken = privilegesOf(config, { holders: [[{ type: 'token', ugid: subject.tokenid }]], userid: subject.tokenid }, path);
  const both = new Map<Privilege, boolean>();
  for (const [privilege, propagate] of asToken) {
    const user = asUser.get(privilege);
    if (user !== undefined) both.set(privilege, propagate && user);
  }
  return both;
}

/** Whether the subject holds all of `privileges` on `path` (or any one of them, with `any`). */
export function allows(config: AccessConfig, subject: Subject, path: string, privileges: readonly Privilege[], any = false): boolean {
  const held = effectivePrivileges(config, subject, path);
  return any ? privileges.some((p) => held.has(p)) : privileges.every((p) => held.has(p));
}

/** Fills `{placeholders}` of a declared ACL path (`/vms/{vmid}`) from validated parameters. */
export function fillAclPath(template: string, params: Readonly<Record<string, unknown>>): string {
  return normalizeAclPath(
    template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = params[name];
      if (value === undefined || value === null) throw new Error(`ACL path ${template} needs parameter '${name}'`);
      return String(value);
    }),
  );
}

type Holder = { readonly type: AclEntry['type']; readonly ugid: string };
/** Holders in precedence order: the first class with entries at a level replaces the inherited roles. */
type HolderClasses = readonly (readonly Holder[])[];

function userHolders(subject: Subject): HolderClasses {
  return [[{ type: 'user', ugid: subject.userid }], subject.groups.map((ugid) => ({ type: 'group' as const, ugid }))];
}

function privilegesOf(config: AccessConfig, who: { holders: HolderClasses; userid: string }, path: string): Privileges {
  if (who.userid === SUPERUSER) return allOf(config);
  const target = normalizeAclPath(path);
  const regular = rolesOn(config, who.holders, target);
  const pools = config.memberPools.get(target) ?? [];
  if (pools.length === 0 || regular.has(NO_ACCESS)) return toPrivileges(config, regular);
  // As PVE's compile_acl_path: a pool's roles never propagate and add only what the member's own entries did not set.
  const fromPools = new Map<string, boolean>();
  for (const pool of pools) for (const roleid of rolesOn(config, who.holders, `/pool/${pool}`).keys()) fromPools.set(roleid, false);
  if (fromPools.has(NO_ACCESS)) return new Map();
  return toPrivileges(config, new Map([...fromPools, ...regular]));
}

/** Role id → propagate, after walking the path. */
function rolesOn(config: AccessConfig, holders: HolderClasses, target: string): Map<string, boolean> {
  const chain = pathChain(target);
  // Each entry's path normalised once, not once per level.
  const onChain = config.acl.map((entry) => ({ entry, level: normalizeAclPath(entry.path) })).filter(({ level }) => chain.includes(level));
  let roles = new Map<string, boolean>();
  for (const level of chain) {
    const atTarget = level === target;
    const here = onChain.filter((e) => e.level === level && (atTarget || e.entry.propagate)).map((e) => e.entry);
    for (const holderClass of holders) {
      const entries = here.filter((entry) => holderClass.some((h) => h.type === entry.type && h.ugid === entry.ugid));
      if (entries.length === 0) continue;
      roles = new Map();
      for (const entry of entries) roles.set(entry.roleid, (roles.get(entry.roleid) ?? false) || entry.propagate);
      break;
    }
  }
  return roles;
}

function toPrivileges(config: AccessConfig, roles: ReadonlyMap<string, boolean>): Privileges {
  if (roles.has(NO_ACCESS)) return new Map();
  const privileges = new Map<Privilege, boolean>();
  for (const [roleid, propagate] of roles) {
    for (const privilege of config.roles.get(roleid)?.privileges ?? [])
      privileges.set(privilege, (privileges.get(privilege) ?? false) || propagate);
  }
  return privileges;
}

function allOf(config: AccessConfig): Privileges {
  const administrator = config.roles.get('Administrator');
  return new Map([...(administrator?.privileges ?? [])].map((privilege) => [privilege, true]));
}
