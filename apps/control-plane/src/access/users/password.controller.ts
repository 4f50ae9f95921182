import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Endpoint, type ParamsOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { Caller, type Principal } from '../../http/principal.js';
import { changePassword } from './password.endpoints.js';
import { PasswordService } from './password.service.js';
import { clientAddress } from '../../http/client-address.js';

@Controller()
export class PasswordController {
  constructor(private readonly passwords: PasswordService) {}

  @Endpoint(changePassword)
  async change(
    @Caller() caller: Principal,
    @Params() params: ParamsOf<typeof changePassword>,
    @Req() request: FastifyRequest,
  ): Promise<null> {
    // The address throttles wrong confirmation passwords like failed logins.
    await this.passwords.change(caller, params, clientAddress(request));
    return null;
  }
}
