import type { EntityManager } from 'typeorm';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { GroupMemberRow } from '../entities/group-member.entity.js';
import { GroupRow } from '../entities/group.entity.js';

/** The groups' tables as the groups API reads and writes them. Writes take the EntityManager of an `AccessState.write`. */

export interface StoredGroup {
  readonly groupid: string;
  readonly comment: string | null;
  readonly members: readonly string[];
}

/** Every group, or only the one named, with its members, sorted by id. */
export async function readGroups(db: EntityManager, groupid?: string): Promise<StoredGroup[]> {
  const where = groupid === undefined ? {} : { groupid };
  const [groups, members] = await Promise.all([
    db.find(GroupRow, { where, order: { groupid: 'ASC' } }),
    db.find(GroupMemberRow, { where, order: { userid: 'ASC' } }),
  ]);
  return groups.map((g) => ({ ...g, members: members.filter((m) => m.groupid === g.groupid).map((m) => m.userid) }));
}

export async function insertGroup(db: EntityManager, group: GroupRow): Promise<void> {
  await db.insert(GroupRow, group);
}

/** Whether the group exists (and now has the changes). */
export async function updateGroup(db: EntityManager, groupid: string, changes: Partial<Pick<GroupRow, 'comment'>>): Promise<boolean> {
  if (Object.keys(changes).length === 0) return db.exists(GroupRow, { where: { groupid } });
  return ((await db.update(GroupRow, { groupid }, changes)).affected ?? 0) > 0;
}

/** Whether a group was deleted; its memberships go by cascade, its ACL entries here. */
export async function deleteGroup(db: EntityManager, groupid: string): Promise<boolean> {
  const result = await db.delete(GroupRow, { groupid });
  if (!result.affected) return false;
  await db.delete(AclEntryRow, { type: 'group', ugid: groupid });
  return true;
}
