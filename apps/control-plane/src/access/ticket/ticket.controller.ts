import { Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { badParam } from '../../errors/resource-errors.js';
import { readCredentials, TICKET_COOKIE } from '../../http/credentials.js';
import { TICKET_LIFETIME_S } from '../auth/tickets.js';
import { createTicket, deleteTicket, getTicket } from './ticket.endpoints.js';
import { TicketService } from './ticket.service.js';
import { clientAddress } from '../../http/client-address.js';

@Controller()
export class TicketController {
  constructor(private readonly tickets: TicketService) {}

  @Endpoint(createTicket)
  async create(
    @Params() params: ParamsOf<typeof createTicket>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResultOf<typeof createTicket>> {
    const { username, password } = credentialsOf(params, request);
    if (params.otp !== undefined) throw badParam('otp', 'two-factor authentication is not built yet: log in without otp');
    if ((params.path === undefined) !== (params.privs === undefined))
      throw badParam(params.path === undefined ? 'path' : 'privs', "parameters 'path' and 'privs' go together");
    const verify = params.path !== undefined && params.privs !== undefined ? { path: params.path, privs: params.privs } : undefined;
    const result = await this.tickets.login({ username, password, address: clientAddress(request), ...(verify ? { verify } : {}) });
    if (result.ticket) {
      reply.header(
        'set-cookie',
        `${TICKET_COOKIE}=${encodeURIComponent(result.ticket)}; Path=/; Max-Age=${TICKET_LIFETIME_S}; Secure; HttpOnly; SameSite=Lax`,
      );
    }
    return result;
  }

  @Endpoint(getTicket)
  get(): null {
    return null;
  }

  @Endpoint(deleteTicket)
  remove(@Res({ passthrough: true }) reply: FastifyReply): null {
    reply.header('set-cookie', `${TICKET_COOKIE}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax`);
    return null;
  }
}

/** PVE's form (`username`, `password`, `realm`), or HTTP Basic credentials. */
function credentialsOf(params: ParamsOf<typeof createTicket>, request: FastifyRequest): { username: string; password: string } {
  if (params.username === undefined && params.password === undefined) {
    const basic = readCredentials({ authorization: request.headers.authorization });
    if (basic.kind === 'basic') return { username: basic.username, password: basic.password };
  }
  if (params.username === undefined) throw badParam('username', "parameter 'username' is missing (or send Basic credentials)");
  if (params.password === undefined) throw badParam('password', "parameter 'password' is missing");
  const username = params.realm !== undefined && !params.username.includes('@') ? `${params.username}@${params.realm}` : params.username;
  return { username, password: params.password };
}
