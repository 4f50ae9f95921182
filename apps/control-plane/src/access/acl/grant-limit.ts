import { NO_ACCESS, type Privilege, type Privileges, type Role } from '@corral/acl';

/**
 * What a caller lacks to add or remove an ACL entry for `role`, given its own privileges on the
 * entry's path; empty when it may. PVE's rule: `perm-modify` lets a caller without
 * Permissions.Modify change ACLs through an allocate privilege (VM.Allocate on `/vms/100`), and
 * such a caller may only hand out (or take back) roles whose privileges it holds there itself, also
 * propagating when it adds a propagating entry; NoAccess needs Permissions.Modify.
 */
export function missingToGrant(
  held: Privileges,
  role: Role,
  change: { readonly remove: boolean; readonly propagate: boolean },
): Privilege[] {
  if (held.has('Permissions.Modify')) return [];
  if (role.roleid === NO_ACCESS) return ['Permissions.Modify'];
  const mustPropagate = change.propagate && !change.remove;
  return [...role.privileges].filter((privilege) => {
    const propagates = held.get(privilege);
    return propagates === undefined || (mustPropagate && !propagates);
  });
}
