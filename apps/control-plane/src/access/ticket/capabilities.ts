import { effectivePrivileges, type Privilege, type Subject } from '@corral/acl';
import type { AccessSnapshot } from '../state/access-snapshot.js';

export type Capabilities = Record<'vms' | 'storage' | 'access' | 'nodes' | 'sdn' | 'dc' | 'mapping', Record<string, 1>>;

const SUMMARY_PATHS = ['/', '/nodes', '/access/groups', '/vms', '/storage', '/sdn', '/mapping'];

/**
 * PVE's `cap` in the ticket response: what the caller may do, per area, over the
 * summary paths and every path that has an ACL entry. Only the GUI reads it.
 */
export function capabilities(access: AccessSnapshot, subject: Subject): Capabilities {
  const held = new Set<Privilege>();
  for (const path of new Set([...SUMMARY_PATHS, ...access.acl.map((entry) => entry.path)])) {
    for (const privilege of effectivePrivileges(access, subject, path).keys()) held.add(privilege);
  }
  const atRoot = effectivePrivileges(access, subject, '/');
  const pick = (privileges: Iterable<Privilege>, keep: (p: Privilege) => boolean) =>
    Object.fromEntries([...privileges].filter(keep).map((p) => [p, 1 as const]));
  const modify = (prefixes: string[]) => (p: Privilege) => p === 'Permissions.Modify' || prefixes.some((prefix) => p.startsWith(prefix));
  return {
    vms: pick(held, modify(['VM.'])),
    storage: pick(held, (p) => p.startsWith('Datastore.')),
    access: pick(held, modify(['User.', 'Group.'])),
    nodes: pick(held, modify(['Sys.'])),
    sdn: pick(held, modify(['SDN.'])),
    dc: pick(atRoot.keys(), (p) => p === 'Sys.Audit' || p === 'Sys.Modify' || p.startsWith('SDN.')),
    mapping: pick(held, modify(['Mapping.'])),
  };
}
