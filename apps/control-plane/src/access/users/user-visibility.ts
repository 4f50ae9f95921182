import { allows, type Privilege } from '@corral/acl';
import type { Principal } from '../../http/principal.js';
import type { AccessSnapshot } from '../state/access-snapshot.js';

const SEE_USERS: readonly Privilege[] = ['User.Modify', 'Sys.Audit'];

/**
 * Which users `GET /access/users` shows the caller (PVE's user index): all of them with User.Modify
 * or Sys.Audit on `/access/groups`, else the members of groups it holds one of them on, and always
 * itself. A token is not its user here, as in PVE: it sees only what its privileges show.
 */
export function visibleUsers(access: AccessSnapshot, caller: Principal): (userid: string) => boolean {
  if (allows(access, caller.subject, '/access/groups', SEE_USERS, true)) return () => true;
  const visible = new Set<string>();
  for (const group of access.groups.values()) {
    if (allows(access, caller.subject, `/access/groups/${group.groupid}`, SEE_USERS, true)) group.members.forEach((m) => visible.add(m));
  }
  if (caller.tokenid === null) visible.add(caller.userid);
  return (userid) => visible.has(userid);
}
