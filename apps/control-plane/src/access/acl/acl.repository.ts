import { BUILT_IN_ROLES, type AclEntry, type Role } from '@corral/acl';
import { In, type EntityManager } from 'typeorm';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { ApiTokenRow } from '../entities/api-token.entity.js';
import { GroupRow } from '../entities/group.entity.js';
import { RoleRow } from '../entities/role.entity.js';
import { UserRow } from '../entities/user.entity.js';
import { customRole } from '../state/access-snapshot.js';
import { fullTokenid, splitFullTokenid } from '../full-tokenid.js';

/** The ACL table and what its entries name, inside an `AccessState.write` transaction. */

export interface AclReferences {
  readonly roles: readonly string[];
  readonly users: readonly string[];
  readonly groups: readonly string[];
  /** Full token ids, `user@realm!tokenid`. */
  readonly tokens: readonly string[];
}

export interface FoundReferences {
  readonly roles: ReadonlyMap<string, Role>;
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
  readonly tokens: ReadonlySet<string>;
}

// FOR SHARE: a concurrent delete of a user, group, token or role waits until the new entries are committed.
const SHARE = { mode: 'pessimistic_read' } as const;

/** Which of the referenced roles, users, groups and tokens exist, each share-locked until the transaction ends. */
export async function lockReferences(db: EntityManager, refs: AclReferences): Promise<FoundReferences> {
  const custom = await db.find(RoleRow, { where: { roleid: In([...refs.roles]) }, lock: SHARE });
  const users = await db.find(UserRow, { select: { userid: true }, where: { userid: In([...refs.users]) }, lock: SHARE });
  const groups = await db.find(GroupRow, { select: { groupid: true }, where: { groupid: In([...refs.groups]) }, lock: SHARE });
  const tokens =
    refs.tokens.length === 0
      ? []
      : await db.find(ApiTokenRow, { select: { userid: true, tokenid: true }, where: refs.tokens.map(splitFullTokenid), lock: SHARE });
  const roles = new Map<string, Role>();
  for (const roleid of refs.roles) {
    const builtIn = BUILT_IN_ROLES.get(roleid);
    if (builtIn) roles.set(roleid, builtIn);
  }
  for (const row of custom) roles.set(row.roleid, customRole(row));
  return {
    roles,
    users: new Set(users.map((u) => u.userid)),
    groups: new Set(groups.map((g) => g.groupid)),
    tokens: new Set(tokens.map((t) => fullTokenid(t.userid, t.tokenid))),
  };
}

/** Adds the entries; one that exists gets the new `propagate`. */
export async function upsertEntries(db: EntityManager, entries: readonly AclEntry[]): Promise<void> {
  await db.upsert(
    AclEntryRow,
    entries.map((entry) => ({ ...entry })),
    ['path', 'type', 'ugid', 'roleid'],
  );
}

/** Removes the entries that exist, whatever their `propagate`. */
export async function deleteEntries(db: EntityManager, entries: readonly AclEntry[]): Promise<void> {
  await db.delete(
    AclEntryRow,
    entries.map(({ path, type, ugid, roleid }) => ({ path, type, ugid, roleid })),
  );
}
