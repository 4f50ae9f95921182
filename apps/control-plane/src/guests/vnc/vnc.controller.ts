import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { VncService } from './vnc.service.js';
import { VNC_ENDPOINTS } from './vnc.endpoints.js';

type Endpoints = typeof VNC_ENDPOINTS;

/** A VM's VNC console: `vncproxy`, and `vncwebsocket` when it is not upgraded (VncWebsocket takes the upgrades). */
@Controller()
export class VncController {
  constructor(private readonly vnc: VncService) {}

  @Endpoint(VNC_ENDPOINTS.proxy)
  proxy(
    @Params() p: ParamsOf<Endpoints['proxy']>,
    @Caller() caller: Principal,
    @Req() request: FastifyRequest,
  ): Promise<ResultOf<Endpoints['proxy']>> {
    return this.vnc.proxy(p.node, p.vmid, caller, request.raw.socket);
  }

  @Endpoint(VNC_ENDPOINTS.websocket)
  websocket(): never {
    return this.vnc.withoutUpgrade();
  }
}
