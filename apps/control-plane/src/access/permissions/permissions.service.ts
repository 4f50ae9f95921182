import { effectivePrivileges, type Subject } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import { badParam } from '../../errors/resource-errors.js';
import { AUDIT_ACCESS } from '../acl/acl.service.js';
import { splitFullTokenid } from '../full-tokenid.js';
import { principalOf } from '../auth/authenticator.js';
import { denial, permissionDenied } from '../auth/authorizer.js';
import { callerName, type Principal } from '../../http/principal.js';
import type { AccessSnapshot } from '../state/access-snapshot.js';
import { AccessState } from '../state/access-state.js';
import { permissionMap, privilegeFlags, type PrivilegeFlags } from './permission-map.js';

@Injectable()
export class PermissionsService {
  constructor(private readonly state: AccessState) {}

  /** As PVE: anyone about itself and its own tokens; about others with Sys.Audit on `/access`. */
  async of(
    caller: Principal,
    query: { readonly userid?: string | undefined; readonly path?: string | undefined },
  ): Promise<Record<string, PrivilegeFlags>> {
    const access = await this.state.current();
    const self = callerName(caller);
    const asked = query.userid ?? self;
    const owner = asked.includes('!') ? splitFullTokenid(asked).userid : asked;
    if (asked !== self && owner !== self) {
      const denied = denial(AUDIT_ACCESS, { access, principal: caller, params: {} });
      if (denied) throw permissionDenied(denied);
    }
    const subject = subjectOf(access, asked, caller);
    // PVE keys the answer by the path as asked, and treats an empty one as none.
    if (query.path) return { [query.path]: privilegeFlags(effectivePrivileges(access, subject, query.path)) };
    return permissionMap(access, subject);
  }
}

function subjectOf(access: AccessSnapshot, asked: string, caller: Principal): Subject {
  if (!asked.includes('!')) {
    if (!access.users.has(asked)) throw badParam('userid', `parameter 'userid': user '${asked}' does not exist`);
    return principalOf(access, asked, caller.method).subject;
  }
  const token = access.tokens.get(asked);
  if (!token) throw badParam('userid', `parameter 'userid': token '${asked}' does not exist`);
  return principalOf(access, token.userid, 'token', token).subject;
}
