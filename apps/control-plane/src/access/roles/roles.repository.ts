import type { EntityManager } from 'typeorm';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { RoleRow } from '../entities/role.entity.js';

/** The custom roles table, inside an `AccessState.write` transaction; built-in roles are never stored. */

export async function insertRole(db: EntityManager, roleid: string, privs: readonly string[]): Promise<void> {
  await db.insert(RoleRow, { roleid, privs: [...privs] });
}

/** The role's privileges, row-locked until the transaction ends; null when there is no such custom role. */
export async function lockRolePrivileges(db: EntityManager, roleid: string): Promise<string[] | null> {
  const row = await db.findOne(RoleRow, { where: { roleid }, lock: { mode: 'pessimistic_write' } });
  return row?.privs ?? null;
}

export async function setRolePrivileges(db: EntityManager, roleid: string, privs: readonly string[]): Promise<void> {
  await db.update(RoleRow, { roleid }, { privs: [...privs] });
}

/** Deletes the role and the ACL entries granting it; false when there is no such custom role. */
export async function deleteRoleAndGrants(db: EntityManager, roleid: string): Promise<boolean> {
  const deleted = await db.delete(RoleRow, { roleid });
  if (!deleted.affected) return false;
  await db.delete(AclEntryRow, { roleid });
  return true;
}
