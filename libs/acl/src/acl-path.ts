/**
 * ACL paths. Normalised as PVE does (duplicate and trailing slashes removed), and
 * valid for a new entry only when they name something an ACL can be set on.
 */
export function normalizeAclPath(path: string): string {
  const collapsed = `/${path}`.replace(/\/+/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

const ID = '[A-Za-z0-9][A-Za-z0-9._-]*';
const VALID = [
  '',
  '/access',
  '/access/groups',
  `/access/groups/${ID}`,
  '/access/realm',
  `/access/realm/${ID}`,
  '/nodes',
  `/nodes/${ID}`,
  '/pool',
  `/pool/${ID}(/${ID}){0,2}`,
  '/sdn',
  `/sdn/zones(/${ID}(/${ID}(/([1-9]\\d{0,3}))?)?)?`,
  `/sdn/(controllers|dns|ipams|fabrics|prefix-lists|route-maps)(/${ID})?`,
  '/storage',
  `/storage/${ID}`,
  '/vms',
  // vmid >= 100, as in PVE
  '/vms/([1-9]\\d{2,8})',
  '/mapping',
  `/mapping/${ID}(/${ID})?`,
].map((pattern) => new RegExp(`^${pattern}$`));

/** Whether an ACL entry may be created on this (normalised) path; `/` is valid. */
export function isValidAclPath(path: string): boolean {
  const normalized = normalizeAclPath(path);
  if (!/^[A-Za-z0-9._\-/]+$/.test(normalized)) return false;
  const rest = normalized === '/' ? '' : normalized;
  return VALID.some((pattern) => pattern.test(rest));
}

/** The paths walked from the root to `path`: `/`, `/vms`, `/vms/100`. */
export function pathChain(path: string): string[] {
  const normalized = normalizeAclPath(path);
  const segments = normalized.split('/').filter(Boolean);
  return ['/', ...segments.map((_, i) => `/${segments.slice(0, i + 1).join('/')}`)];
}
