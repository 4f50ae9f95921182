import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { QEMU } from '../guest-kinds.js';
import { guestRef } from '../guest-ref.js';
import { MonitorService } from './monitor.service.js';
import { QEMU_ENDPOINTS } from './qemu.endpoints.js';

type Endpoints = typeof QEMU_ENDPOINTS;

/** `/nodes/{node}/qemu/{vmid}/monitor`: the VM's human monitor. */
@Controller()
export class MonitorController {
  constructor(private readonly monitor: MonitorService) {}

  @Endpoint(QEMU_ENDPOINTS.monitorCommands)
  commands(@Params() p: ParamsOf<Endpoints['monitorCommands']>): ResultOf<Endpoints['monitorCommands']> {
    return this.monitor.commands(guestRef(QEMU, p));
  }

  @Endpoint(QEMU_ENDPOINTS.monitor)
  run(@Params() p: ParamsOf<Endpoints['monitor']>, @Caller() caller: Principal): Promise<string> {
    return this.monitor.monitor(guestRef(QEMU, p), p.command, caller);
  }
}
