import { BUILT_IN_ROLES, isReservedRoleId, type Privilege, type Role } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { alreadyExists, badParam, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import { AccessState } from '../state/access-state.js';
import type { RoleListing } from './roles.endpoints.js';
import { deleteRoleAndGrants, insertRole, lockRolePrivileges, setRolePrivileges } from './roles.repository.js';

/** Roles: the built-in ones from `@corral/acl`, which never change, and custom ones. */
@Injectable()
export class RolesService {
  constructor(private readonly state: AccessState) {}

  async list(): Promise<z.output<typeof RoleListing>[]> {
    const { roles } = await this.state.current();
    return [...roles.values()]
      .sort((a, b) => a.roleid.localeCompare(b.roleid))
      .map((role) => ({ roleid: role.roleid, privs: sortedPrivileges(role).join(','), special: role.special ? 1 : 0 }));
  }

  /** PVE answers `{privilege: 1}`. */
  async privileges(roleid: string): Promise<Record<string, 1>> {
    const role = (await this.state.current()).roles.get(roleid);
    if (!role) throw roleNotFound(roleid);
    return Object.fromEntries(sortedPrivileges(role).map((privilege) => [privilege, 1 as const]));
  }

  async create(roleid: string, privs: readonly Privilege[]): Promise<void> {
    if (isReservedRoleId(roleid)) {
      throw badParam('roleid', `parameter 'roleid': '${roleid}' is reserved (built-in roles and ids starting with 'PVE')`);
    }
    try {
      await this.state.write((db) => insertRole(db, roleid, canonical(privs)));
    } catch (error) {
      throw isUniqueViolation(error) ? alreadyExists(`role '${roleid}'`) : error;
    }
  }

  /** As PVE: without `append` the given privileges (or none) replace the role's. */
  async update(roleid: string, privs: readonly Privilege[] | undefined, append: boolean): Promise<void> {
    refuseBuiltIn(roleid, 'changed');
    if (append && privs === undefined) throw badParam('append', "parameter 'append' needs 'privs'");
    await this.state.write(async (db) => {
      const current = await lockRolePrivileges(db, roleid);
      if (current === null) throw roleNotFound(roleid);
      await setRolePrivileges(db, roleid, canonical([...(append ? current : []), ...(privs ?? [])]));
    });
  }

  async remove(roleid: string): Promise<void> {
    refuseBuiltIn(roleid, 'deleted');
    await this.state.write(async (db) => {
      if (!(await deleteRoleAndGrants(db, roleid))) throw roleNotFound(roleid);
    });
  }
}

function refuseBuiltIn(roleid: string, what: 'changed' | 'deleted'): void {
  if (BUILT_IN_ROLES.has(roleid)) throw badParam('roleid', `parameter 'roleid': built-in role '${roleid}' cannot be ${what}`);
}

function roleNotFound(roleid: string) {
  return notFound(`role '${roleid}'`);
}

function sortedPrivileges(role: Role): Privilege[] {
  return [...role.privileges].sort();
}

/** Stored sorted and without repeats, so the list shows them as PVE does. */
function canonical(privs: readonly string[]): string[] {
  return [...new Set(privs)].sort();
}
