import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { guestController } from '../guest-controller.js';
import { LXC } from '../guest-kinds.js';
import { containerArchiveOf, restoreRequestOf } from '../restore/restore-params.js';
import { LXC_ENDPOINTS } from './lxc.endpoints.js';

type Endpoints = typeof LXC_ENDPOINTS;

/** `/nodes/{node}/lxc`: the endpoints of every guest, and the containers' own. */
@Controller()
export class LxcController extends guestController(LXC, LXC_ENDPOINTS) {
  @Endpoint(LXC_ENDPOINTS.create)
  create(@Params() p: ParamsOf<Endpoints['create']>, @Caller() caller: Principal): Promise<string> {
    const restore = restoreRequestOf(LXC, p, containerArchiveOf(p));
    if (restore !== undefined) return this.restores.restore(LXC, restore, caller);
    return this.guests.create(LXC, { node: p.node, vmid: p.vmid, params: p }, caller);
  }

  @Endpoint(LXC_ENDPOINTS.suspend)
  suspend(@Params() p: ParamsOf<Endpoints['suspend']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.suspend(LXC, p.node, p.vmid, {}, caller);
  }

  @Endpoint(LXC_ENDPOINTS.restart)
  restart(@Params() p: ParamsOf<Endpoints['restart']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.reboot(LXC, p.node, p.vmid, p, caller);
  }

  /** Spec 4.4's `POST .../status` with `command`: the same operations as their own paths. */
  @Endpoint(LXC_ENDPOINTS.command)
  command(@Params() p: ParamsOf<Endpoints['command']>, @Caller() caller: Principal): Promise<string> {
    switch (p.command) {
      case 'start':
        return this.guests.start(LXC, p.node, p.vmid, caller);
      case 'stop':
        return this.guests.stop(LXC, p.node, p.vmid, caller);
      case 'shutdown':
        return this.guests.shutdown(LXC, p.node, p.vmid, {}, caller);
      case 'restart':
      case 'reboot':
        return this.guests.reboot(LXC, p.node, p.vmid, {}, caller);
      case 'suspend':
        return this.guests.suspend(LXC, p.node, p.vmid, {}, caller);
      case 'resume':
        return this.guests.resume(LXC, p.node, p.vmid, caller);
    }
  }

  /** PVE answers `null` here and Ansible does not wait: the template is made before the answer. */
  @Endpoint(LXC_ENDPOINTS.template)
  async template(@Params() p: ParamsOf<Endpoints['template']>, @Caller() caller: Principal): Promise<null> {
    await this.guests.template(LXC, p.node, p.vmid, caller, { wait: true });
    return null;
  }
}
