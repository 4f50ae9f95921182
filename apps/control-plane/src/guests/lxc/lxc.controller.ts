import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { guestController } from '../guest-controller.js';
import { LXC } from '../guest-kinds.js';
import { guestRef } from '../guest-ref.js';
import { createCommand } from '../lifecycle/create-command.js';
import { LXC_ENDPOINTS } from './lxc.endpoints.js';

type Endpoints = typeof LXC_ENDPOINTS;

/** `/nodes/{node}/lxc`: the endpoints of every guest, and the containers' own. */
@Controller()
export class LxcController extends guestController(LXC, LXC_ENDPOINTS) {
  @Endpoint(LXC_ENDPOINTS.create)
  create(@Params() p: ParamsOf<Endpoints['create']>, @Caller() caller: Principal): Promise<string> {
    return this.creates.create(createCommand(LXC, p), caller);
  }

  @Endpoint(LXC_ENDPOINTS.suspend)
  suspend(@Params() p: ParamsOf<Endpoints['suspend']>, @Caller() caller: Principal): Promise<string> {
    return this.power.suspend(guestRef(LXC, p), {}, caller);
  }

  @Endpoint(LXC_ENDPOINTS.restart)
  restart(@Params() p: ParamsOf<Endpoints['restart']>, @Caller() caller: Principal): Promise<string> {
    return this.power.reboot(guestRef(LXC, p), p, caller);
  }

  /** Corral's `POST .../status` with `command`: the same operations as their own paths. */
  @Endpoint(LXC_ENDPOINTS.command)
  command(@Params() p: ParamsOf<Endpoints['command']>, @Caller() caller: Principal): Promise<string> {
    const guest = guestRef(LXC, p);
    switch (p.command) {
      case 'start':
        return this.power.start(guest, caller);
      case 'stop':
        return this.power.stop(guest, caller);
      case 'shutdown':
        return this.power.shutdown(guest, {}, caller);
      case 'restart':
      case 'reboot':
        return this.power.reboot(guest, {}, caller);
      case 'suspend':
        return this.power.suspend(guest, {}, caller);
      case 'resume':
        return this.power.resume(guest, caller);
    }
  }

  /** PVE answers `null` here and Ansible does not wait: the template is made before the answer. */
  @Endpoint(LXC_ENDPOINTS.template)
  async template(@Params() p: ParamsOf<Endpoints['template']>, @Caller() caller: Principal): Promise<null> {
    await this.templates.template(guestRef(LXC, p), caller, { wait: true });
    return null;
  }
}
