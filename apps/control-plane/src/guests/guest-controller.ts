import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import type { GuestKind } from './guest-kinds.js';
import type { guestEndpoints } from './guest.endpoints.js';
import { GuestsService } from './guests.service.js';
import { RestoreService } from './restore/restore.service.js';

type Common = ReturnType<typeof guestEndpoints>;

/**
 * The controller of what every kind of guest serves, for `kind` at its endpoints; the kind's own
 * controller extends it with its own endpoints. One line per endpoint into the guests service.
 */
export function guestController(kind: GuestKind, endpoints: Common) {
  @Controller()
  class GuestController {
    constructor(
      readonly guests: GuestsService,
      readonly restores: RestoreService,
    ) {}

    @Endpoint(endpoints.list)
    list(@Params() p: ParamsOf<Common['list']>, @Caller() caller: Principal): Promise<ResultOf<Common['list']>> {
      return this.guests.list(kind, p.node, caller);
    }

    @Endpoint(endpoints.index)
    index(@Params() p: ParamsOf<Common['index']>): ResultOf<Common['index']> {
      return this.guests.index(kind, p.node, p.vmid);
    }

    @Endpoint(endpoints.destroy)
    destroy(@Params() p: ParamsOf<Common['destroy']>, @Caller() caller: Principal): Promise<string> {
      return this.guests.destroy(kind, p.node, p.vmid, p, caller);
    }

    @Endpoint(endpoints.status)
    status(@Params() p: ParamsOf<Common['status']>): Promise<ResultOf<Common['status']>> {
      return this.guests.current(kind, p.node, p.vmid);
    }

    @Endpoint(endpoints.current)
    current(@Params() p: ParamsOf<Common['current']>): Promise<ResultOf<Common['current']>> {
      return this.guests.current(kind, p.node, p.vmid);
    }

    @Endpoint(endpoints.start)
    start(@Params() p: ParamsOf<Common['start']>, @Caller() caller: Principal): Promise<string> {
      return this.guests.start(kind, p.node, p.vmid, caller);
    }

    @Endpoint(endpoints.stop)
    stop(@Params() p: ParamsOf<Common['stop']>, @Caller() caller: Principal): Promise<string> {
      return this.guests.stop(kind, p.node, p.vmid, caller);
    }

    @Endpoint(endpoints.shutdown)
    shutdown(@Params() p: ParamsOf<Common['shutdown']>, @Caller() caller: Principal): Promise<string> {
      return this.guests.shutdown(kind, p.node, p.vmid, p, caller);
    }

    @Endpoint(endpoints.reboot)
    reboot(@Params() p: ParamsOf<Common['reboot']>, @Caller() caller: Principal): Promise<string> {
      return this.guests.reboot(kind, p.node, p.vmid, p, caller);
    }

    @Endpoint(endpoints.resume)
    resume(@Params() p: ParamsOf<Common['resume']>, @Caller() caller: Principal): Promise<string> {
      return this.guests.resume(kind, p.node, p.vmid, caller);
    }

    @Endpoint(endpoints.config)
    config(@Params() p: ParamsOf<Common['config']>): ResultOf<Common['config']> {
      return this.guests.config(kind, p.node, p.vmid);
    }

    @Endpoint(endpoints.clone)
    clone(@Params() p: ParamsOf<Common['clone']>, @Caller() caller: Principal): Promise<string> {
      const name = (p as { name?: string; hostname?: string }).name ?? (p as { hostname?: string }).hostname;
      return this.guests.clone(kind, p.node, p.vmid, { ...p, ...(name !== undefined ? { name } : {}) }, caller);
    }

    @Endpoint(endpoints.setConfig)
    setConfig(@Params() p: ParamsOf<Common['setConfig']>, @Caller() caller: Principal): Promise<null> {
      return this.guests.setConfig(kind, p.node, p.vmid, p, caller);
    }
  }
  return GuestController;
}
