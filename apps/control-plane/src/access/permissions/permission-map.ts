import { effectivePrivileges, normalizeAclPath, type AccessConfig, type Privileges, type Subject } from '@corral/acl';

/** Privilege → 1 when it also propagates below the path, else 0 (PVE's `/access/permissions`). */
export type PrivilegeFlags = Record<string, 0 | 1>;

// What PVE always reports, besides every path that has an ACL entry.
const SUMMARY_PATHS = ['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms'];

/**
 * The subject's privileges on the summary paths, every ACL path and every pool member's path,
 * leaving out paths where it holds none. Telmate's provider reads `["/"]` of this at start.
 */
export function permissionMap(config: AccessConfig, subject: Subject): Record<string, PrivilegeFlags> {
  const paths = [
    ...new Set([...SUMMARY_PATHS, ...config.acl.map((entry) => normalizeAclPath(entry.path)), ...config.memberPools.keys()]),
  ].sort();
  const map: Record<string, PrivilegeFlags> = {};
  for (const path of paths) {
    const flags = privilegeFlags(effectivePrivileges(config, subject, path));
    if (Object.keys(flags).length > 0) map[path] = flags;
  }
  return map;
}

export function privilegeFlags(privileges: Privileges): PrivilegeFlags {
  return Object.fromEntries(
    [...privileges].sort(([a], [b]) => (a < b ? -1 : 1)).map(([privilege, propagates]) => [privilege, propagates ? 1 : 0]),
  );
}
