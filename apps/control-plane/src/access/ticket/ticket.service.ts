import { allows, isPrivilege, normalizeAclPath, SUPERUSER, type Privilege } from '@corral/acl';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { CONFIG, type Config } from '../../config/config.js';
import { activeUser, authenticationFailed, Authenticator, principalOf } from '../auth/authenticator.js';
import { signCsrfToken, signTicket } from '../auth/tickets.js';
import { TicketKeys } from '../auth/ticket-keys.js';
import type { UserState } from '../state/access-snapshot.js';
import { AccessState } from '../state/access-state.js';
import { badParam } from '../../errors/resource-errors.js';
import { capabilities } from './capabilities.js';
import type { Ticket } from './ticket.endpoints.js';

export interface Login {
  readonly username: string;
  readonly password: string;
  readonly address: string;
  /** Verify mode: check the credentials and these privileges on `path`, issue nothing. */
  readonly verify?: { readonly path: string; readonly privs: string };
}

/** POST /access/ticket: password or ticket in, a fresh ticket and CSRF token out. */
@Injectable()
export class TicketService {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly keys: TicketKeys,
    private readonly state: AccessState,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async login(login: Login): Promise<z.output<typeof Ticket>> {
    const user = await this.check(login);
    const access = await this.state.current();
    const { subject } = principalOf(access, user.userid, 'ticket');
    if (login.verify) {
      const privileges = verifyPrivileges(login.verify.privs);
      if (!allows(access, subject, normalizeAclPath(login.verify.path), privileges))
        throw authenticationFailed('lacks the privileges asked for');
      return { username: user.userid };
    }
    const key = await this.keys.signingKey();
    const now = Math.floor(Date.now() / 1000);
    return {
      username: user.userid,
      ticket: signTicket(user.userid, now, key),
      CSRFPreventionToken: signCsrfToken(user.userid, now, key),
      cap: capabilities(access, subject),
      ...(allows(access, subject, '/', ['Sys.Audit']) ? { clustername: this.config.clusterName } : {}),
    };
  }

  /** A current ticket as the password renews it: for its own user, or any user if root@pam's (as PVE). */
  private async check(login: Login): Promise<UserState> {
    if (login.password.startsWith('PVE:')) {
      const owner = await this.authenticator.ticketUser(login.password);
      if (owner && (owner.userid === login.username || owner.userid === SUPERUSER)) {
        const user = activeUser(await this.state.current(), login.username);
        if (!user) throw authenticationFailed();
        return user;
      }
    }
    return this.authenticator.checkPassword(login.username, login.password, login.address);
  }
}

function verifyPrivileges(privs: string): Privilege[] {
  const names = privs.split(/[,;\s]+/).filter(Boolean);
  const unknown = names.find((name) => !isPrivilege(name));
  if (unknown !== undefined || names.length === 0) throw badParam('privs', `parameter 'privs': unknown privilege '${unknown ?? ''}'`);
  return names as Privilege[];
}
