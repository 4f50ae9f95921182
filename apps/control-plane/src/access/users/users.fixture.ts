import type { TestApp } from '../../../test-support/test-app.js';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { GroupMemberRow } from '../entities/group-member.entity.js';
import { UserRow } from '../entities/user.entity.js';

/** Rows the users and groups integration tests read back; requests and writes are in test-support/access-fixture.ts. */

export function aclEntries(t: TestApp): Promise<AclEntryRow[]> {
  return t.dataSource.manager.find(AclEntryRow, { order: { path: 'ASC', ugid: 'ASC' } });
}

export function userRow(t: TestApp, userid: string): Promise<UserRow | null> {
  return t.dataSource.manager.findOne(UserRow, { where: { userid } });
}

export async function groupsOf(t: TestApp, userid: string): Promise<string[]> {
  return (await t.dataSource.manager.find(GroupMemberRow, { where: { userid }, order: { groupid: 'ASC' } })).map((m) => m.groupid);
}
