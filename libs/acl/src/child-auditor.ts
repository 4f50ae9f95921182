import { normalizeAclPath } from './acl-path.js';
import { allows, type AccessConfig, type Subject } from './evaluate.js';
import type { Privilege } from './privileges.js';

/** Whether the subject holds the privileges on the child `<parent>/<id>`. */
export type ChildAuditor = (id: string | number) => boolean;

const auditors = new WeakMap<AccessConfig, Map<string, ChildAuditor>>();

/**
 * Whether `subject` holds every one of `privileges` on each child `<parent>/<id>` (each guest under
 * `/vms`, each storage under `/storage`), for lists of thousands: the answer is the same as on any
 * other child wherever a child has no ACL entry on its own path and is in no pool, so it is
 * evaluated once for all those, and once for each child that has entries or pools, when first
 * asked. One auditor per access configuration (which is replaced whole when it changes), subject,
 * parent and privileges: a list asked again reuses it.
 */
export function childAuditor(config: AccessConfig, subject: Subject, parent: string, privileges: readonly Privilege[]): ChildAuditor {
  let known = auditors.get(config);
  if (known === undefined) auditors.set(config, (known = new Map()));
  const key = JSON.stringify([subject, parent, privileges]);
  let auditor = known.get(key);
  if (auditor === undefined) known.set(key, (auditor = makeAuditor(config, subject, normalizeAclPath(parent), privileges)));
  return auditor;
}

function makeAuditor(config: AccessConfig, subject: Subject, parent: string, privileges: readonly Privilege[]): ChildAuditor {
  const own = new Set<string>();
  const prefix = `${parent === '/' ? '' : parent}/`;
  const addChild = (path: string) => {
    if (!path.startsWith(prefix)) return;
    const id = path.slice(prefix.length);
    if (id !== '' && !id.includes('/')) own.add(id);
  };
  for (const entry of config.acl) addChild(normalizeAclPath(entry.path));
  for (const path of config.memberPools.keys()) addChild(normalizeAclPath(path));
  // A child no entry and no pool names: what every such child gets.
  let generic = '0';
  while (own.has(generic)) generic += '0';
  const everyOther = allows(config, subject, `${prefix}${generic}`, privileges);
  if (own.size === 0) return () => everyOther;
  const answers = new Map<string, boolean>();
  return (id) => {
    const name = String(id);
    if (!own.has(name)) return everyOther;
    let answer = answers.get(name);
    if (answer === undefined) answers.set(name, (answer = allows(config, subject, `${prefix}${name}`, privileges)));
    return answer;
  };
}
