import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { configUpdate } from '../config-update.js';
import { guestController } from '../guest-controller.js';
import { QEMU } from '../guest-kinds.js';
import { guestRef } from '../guest-ref.js';
import { createCommand } from '../lifecycle/create-command.js';
import { QEMU_ENDPOINTS } from './qemu.endpoints.js';

type Endpoints = typeof QEMU_ENDPOINTS;

/** `/nodes/{node}/qemu`: the endpoints of every guest, and the VMs' own (the monitor's: `MonitorController`). */
@Controller()
export class QemuController extends guestController(QEMU, QEMU_ENDPOINTS) {
  @Endpoint(QEMU_ENDPOINTS.create)
  create(@Params() p: ParamsOf<Endpoints['create']>, @Caller() caller: Principal): Promise<string> {
    return this.creates.create(createCommand(QEMU, p), caller);
  }

  @Endpoint(QEMU_ENDPOINTS.suspend)
  suspend(@Params() p: ParamsOf<Endpoints['suspend']>, @Caller() caller: Principal): Promise<string> {
    return this.power.suspend(guestRef(QEMU, p), p, caller);
  }

  @Endpoint(QEMU_ENDPOINTS.reset)
  reset(@Params() p: ParamsOf<Endpoints['reset']>, @Caller() caller: Principal): Promise<string> {
    return this.power.reset(guestRef(QEMU, p), caller);
  }

  @Endpoint(QEMU_ENDPOINTS.setConfigAsync)
  setConfigAsync(@Params() p: ParamsOf<Endpoints['setConfigAsync']>, @Caller() caller: Principal): Promise<string> {
    return this.configs.setConfigAsync(configUpdate(QEMU, p), caller);
  }

  @Endpoint(QEMU_ENDPOINTS.template)
  template(@Params() p: ParamsOf<Endpoints['template']>, @Caller() caller: Principal): Promise<string> {
    return this.templates.template(guestRef(QEMU, p), caller);
  }
}
