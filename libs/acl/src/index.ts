export { isValidAclPath, normalizeAclPath, pathChain } from './acl-path.js';
export { childAuditor, type ChildAuditor } from './child-auditor.js';
export {
  allows,
  effectivePrivileges,
  fillAclPath,
  SUPERUSER,
  type AccessConfig,
  type AclEntry,
  type Privileges,
  type Subject,
} from './evaluate.js';
export { isPrivilege, PRIVILEGE_GROUPS, PRIVILEGES, type Privilege } from './privileges.js';
export { BUILT_IN_ROLES, isReservedRoleId, NO_ACCESS, type Role } from './roles.js';
