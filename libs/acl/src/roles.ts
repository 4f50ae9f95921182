import { PRIVILEGE_GROUPS, PRIVILEGES, type Privilege } from './privileges.js';

export interface Role {
  readonly roleid: string;
  readonly privileges: ReadonlySet<Privilege>;
  /** Built in (PVE's `special: 1`): cannot be changed or deleted. */
  readonly special: boolean;
}

type GroupName = keyof typeof PRIVILEGE_GROUPS;
const GROUPS = Object.keys(PRIVILEGE_GROUPS) as GroupName[];
const group = (name: GroupName) => PRIVILEGE_GROUPS[name];

/**
 * PVE's built-in roles, derived from the privilege table by its own rule:
 * PVE<Group>Admin = admin + user + audit of the group; PVE<Group>User = user + audit, for groups
 * that have user privileges; PVEAdmin = admin + user + audit of every group but Mapping.Modify;
 * PVEAuditor = every audit privilege; Administrator = everything; NoAccess = nothing.
 */
function builtInRoles(): Role[] {
  const roles: [string, Privilege[]][] = [
    ['Administrator', [...PRIVILEGES]],
    ['NoAccess', []],
    ['PVEAdmin', GROUPS.flatMap((g) => [...group(g).admin, ...group(g).user, ...group(g).audit]).filter((p) => p !== 'Mapping.Modify')],
    ['PVEAuditor', GROUPS.flatMap((g) => [...group(g).audit])],
    ['PVETemplateUser', ['VM.Audit', 'VM.Clone']],
  ];
  for (const g of GROUPS) {
    roles.push([`PVE${g}Admin`, [...group(g).admin, ...group(g).user, ...group(g).audit]]);
    if (group(g).user.length > 0) roles.push([`PVE${g}User`, [...group(g).user, ...group(g).audit]]);
  }
  return roles.map(([roleid, privileges]) => ({ roleid, privileges: new Set(privileges), special: true }));
}

export const BUILT_IN_ROLES: ReadonlyMap<string, Role> = new Map(builtInRoles().map((role) => [role.roleid, role]));

export const NO_ACCESS = 'NoAccess';

/** Role ids starting with `PVE` are reserved for built-in roles, as in PVE. */
export function isReservedRoleId(roleid: string): boolean {
  return roleid.startsWith('PVE') || BUILT_IN_ROLES.has(roleid);
}
