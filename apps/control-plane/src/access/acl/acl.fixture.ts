import { BUILT_IN_ROLES } from '@corral/acl';
import type { TestApp } from '../../../test-support/test-app.js';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { RoleRow } from '../entities/role.entity.js';

/** What the roles, ACL, permissions and access index integration tests read back; requests and writes are in test-support/access-fixture.ts. */

// Derived rather than imported: only test files may import @corral/testing.
type ApiResponse = Awaited<ReturnType<TestApp['api']['send']>>;

/** The password these tests give the users they log in as. */
export const PASSWORD = 'a-test-password';

/** The params named by a 400, in order. */
export function paramsOf(res: ApiResponse): (string | undefined)[] {
  return res.json<{ errors: { param?: string }[] }>().errors.map((e) => e.param);
}

/** A built-in role's privileges as `/access/permissions` shows them. */
export function roleFlags(roleid: string, propagate: 0 | 1): Record<string, 0 | 1> {
  const role = BUILT_IN_ROLES.get(roleid);
  if (!role) throw new Error(`no built-in role ${roleid}`);
  return Object.fromEntries([...role.privileges].sort().map((privilege) => [privilege, propagate]));
}

export function aclRows(t: TestApp): Promise<AclEntryRow[]> {
  return t.dataSource.manager.find(AclEntryRow, { order: { path: 'ASC', type: 'ASC', ugid: 'ASC', roleid: 'ASC' } });
}

export function roleRows(t: TestApp): Promise<RoleRow[]> {
  return t.dataSource.manager.find(RoleRow, { order: { roleid: 'ASC' } });
}
