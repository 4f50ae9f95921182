import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { SUPERUSER, type Subject } from '@corral/acl';
import type { FastifyRequest } from 'fastify';

export type AuthMethod = 'ticket' | 'token' | 'basic' | 'bearer';

/** The authenticated caller of a request. */
export interface Principal {
  /** `user@realm`; for an API token, its owner. */
  readonly userid: string;
  /** `user@realm!tokenid` when the caller is an API token, else null. */
  readonly tokenid: string | null;
  readonly method: AuthMethod;
  /** Who the ACL evaluation asks about (the token, with its privilege separation, or the user). */
  readonly subject: Subject;
}

/**
 * The control plane acting on its own (scheduled backups, the HA manager): root@pam, as PVE's
 * daemons run their tasks; `method` means nothing for a caller that never authenticated.
 */
export const SYSTEM_CALLER: Principal = {
  userid: SUPERUSER,
  tokenid: null,
  method: 'ticket',
  subject: { kind: 'user', userid: SUPERUSER, groups: [] },
};

/** Who the caller is in logs, task UPIDs and ownership: the token id for a token, else the user id. */
export function callerName(principal: Principal): string {
  return principal.tokenid ?? principal.userid;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the endpoint guard on every endpoint that is not public. */
    corralPrincipal?: Principal;
  }
}

/** The authenticated caller, in a handler of an endpoint that is not public. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().corralPrincipal;
  if (!principal) throw new Error('@Caller() used on a public endpoint');
  return principal;
});
