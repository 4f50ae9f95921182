import { SUPERUSER } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../errors/api-error.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { badParam, notFound } from '../../errors/resource-errors.js';
import { Authenticator } from '../auth/authenticator.js';
import { permissionDenied } from '../auth/authorizer.js';
import { hashPassword } from '../auth/passwords.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../state/access-state.js';
import type { changePassword } from './password.endpoints.js';
import { setPasswordHash } from './users.repository.js';

const CONFIRMATION = 'confirmation-password';

/**
 * PUT /access/password, with PVE's rules on top of the declared check: only root@pam touches
 * root@pam, everyone else confirms with their own password, and another pam user's password is
 * root@pam's to change. The Basic-auth cache is keyed by the stored hash, so the old password
 * stops working with this write.
 */
@Injectable()
export class PasswordService {
  constructor(
    private readonly state: AccessState,
    private readonly authenticator: Authenticator,
  ) {}

  async change(caller: Principal, params: ParamsOf<typeof changePassword>, address: string): Promise<void> {
    const { userid } = params;
    const access = await this.state.current();
    const user = access.users.get(userid);
    if (!user) throw notFound(`user '${userid}'`);
    const realmType = access.realms.get(user.realm)?.type;
    if (caller.userid !== SUPERUSER) {
      if (userid === SUPERUSER) throw permissionDenied();
      await this.confirm(caller.userid, params[CONFIRMATION], address);
      if (userid !== caller.userid && realmType === 'pam') throw permissionDenied();
    }
    if (realmType === 'oidc')
      throw badParam('password', `realm '${user.realm}' authenticates with bearer tokens: its users have no password`);
    const passwordHash = await hashPassword(params.password);
    if (!(await this.state.write((db) => setPasswordHash(db, userid, passwordHash)))) throw notFound(`user '${userid}'`);
  }

  /** The caller's own password, checked (and throttled) like a login; a wrong one is a bad parameter, not a failed authentication. */
  private async confirm(userid: string, password: string | undefined, address: string): Promise<void> {
    if (password === undefined)
      throw badParam(CONFIRMATION, `parameter '${CONFIRMATION}' is missing: confirm the change with your current password`);
    try {
      await this.authenticator.checkPassword(userid, password, address);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'AUTHENTICATION_FAILED')
        throw badParam(CONFIRMATION, `parameter '${CONFIRMATION}': wrong password`);
      throw error;
    }
  }
}
