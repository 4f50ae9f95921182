import { In, type EntityManager } from 'typeorm';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { ApiTokenRow } from '../entities/api-token.entity.js';
import { GroupMemberRow } from '../entities/group-member.entity.js';
import { GroupRow } from '../entities/group.entity.js';
import { RealmRow } from '../entities/realm.entity.js';
import { UserRow } from '../entities/user.entity.js';

/** The users' tables as the users API reads and writes them. Writes take the EntityManager of an `AccessState.write`. */

export interface StoredUser {
  readonly row: UserRow;
  readonly groups: readonly string[];
  readonly tokens: readonly ApiTokenRow[];
}

/** Every user, or only the one named, with its groups and tokens, sorted by id. */
export async function readUsers(db: EntityManager, userid?: string): Promise<StoredUser[]> {
  const where = userid === undefined ? {} : { userid };
  const [users, members, tokens] = await Promise.all([
    db.find(UserRow, { where, order: { userid: 'ASC' } }),
    db.find(GroupMemberRow, { where, order: { groupid: 'ASC' } }),
    db.find(ApiTokenRow, { where, order: { tokenid: 'ASC' } }),
  ]);
  return users.map((row) => ({
    row,
    groups: members.filter((m) => m.userid === row.userid).map((m) => m.groupid),
    tokens: tokens.filter((t) => t.userid === row.userid),
  }));
}

/** The realm, kept from being deleted until the transaction ends; null when there is none. */
export function lockRealm(db: EntityManager, realm: string): Promise<RealmRow | null> {
  return db.findOne(RealmRow, { where: { realm }, lock: { mode: 'for_key_share' } });
}

/** Which of `groupids` are not groups; the others are kept from being deleted until the transaction ends. */
export async function missingGroups(db: EntityManager, groupids: readonly string[]): Promise<string[]> {
  if (groupids.length === 0) return [];
  const found = await db.find(GroupRow, {
    select: { groupid: true },
    where: { groupid: In([...groupids]) },
    lock: { mode: 'for_key_share' },
  });
  const existing = new Set(found.map((g) => g.groupid));
  return groupids.filter((g) => !existing.has(g));
}

/** Whether the user exists, holding its row until the transaction ends so that concurrent changes queue. */
export async function lockUser(db: EntityManager, userid: string): Promise<boolean> {
  return (await db.findOne(UserRow, { select: { userid: true }, where: { userid }, lock: { mode: 'pessimistic_write' } })) !== null;
}

export async function insertUser(db: EntityManager, user: Partial<UserRow> & Pick<UserRow, 'userid' | 'realm'>): Promise<void> {
  await db.insert(UserRow, user);
}

export async function updateUser(db: EntityManager, userid: string, changes: Partial<UserRow>): Promise<void> {
  if (Object.keys(changes).length > 0) await db.update(UserRow, { userid }, changes);
}

/** Adds the user to the groups, or, with `replace`, makes them its only groups. */
export async function setGroups(db: EntityManager, userid: string, groupids: readonly string[], replace: boolean): Promise<void> {
  if (replace) await db.delete(GroupMemberRow, { userid });
  if (groupids.length === 0) return;
  await db
    .createQueryBuilder()
    .insert()
    .into(GroupMemberRow)
    .values(groupids.map((groupid) => ({ userid, groupid })))
    .orIgnore()
    .execute();
}

/** Whether a user was deleted; its tokens and memberships go by cascade, its and its tokens' ACL entries here. */
export async function deleteUser(db: EntityManager, userid: string): Promise<boolean> {
  const result = await db.delete(UserRow, { userid });
  if (!result.affected) return false;
  await db
    .createQueryBuilder()
    .delete()
    .from(AclEntryRow)
    // starts_with, not LIKE: a user name may hold % or _.
    .where("(type = 'user' AND ugid = :userid) OR (type = 'token' AND starts_with(ugid, :tokenPrefix))", {
      userid,
      tokenPrefix: `${userid}!`,
    })
    .execute();
  return true;
}

/** Whether the user exists (and now has the new hash). */
export async function setPasswordHash(db: EntityManager, userid: string, passwordHash: string): Promise<boolean> {
  return ((await db.update(UserRow, { userid }, { passwordHash })).affected ?? 0) > 0;
}
