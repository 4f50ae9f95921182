import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { configUpdate } from './config-update.js';
import { GuestConfigService } from './guest-config.service.js';
import type { GuestKind } from './guest-kinds.js';
import { guestRef } from './guest-ref.js';
import { GuestStatusService } from './guest-status.service.js';
import type { guestEndpoints } from './guest.endpoints.js';
import { CloneService } from './lifecycle/clone.service.js';
import { CreateService } from './lifecycle/create.service.js';
import { DestroyService } from './lifecycle/destroy.service.js';
import { TemplateService } from './lifecycle/template.service.js';
import { PowerService } from './power/power.service.js';
import type { JsonText } from '../http/json-text.js';

type Common = ReturnType<typeof guestEndpoints>;

/**
 * The controller of what every kind of guest serves, for `kind` at its endpoints; the kind's own
 * controller extends it with its own endpoints. One line per endpoint into the service of its concern.
 */
export function guestController(kind: GuestKind, endpoints: Common) {
  @Controller()
  class GuestController {
    constructor(
      readonly statuses: GuestStatusService,
      readonly power: PowerService,
      readonly configs: GuestConfigService,
      readonly creates: CreateService,
      readonly clones: CloneService,
      readonly templates: TemplateService,
      readonly destroys: DestroyService,
    ) {}

    @Endpoint(endpoints.list)
    list(@Params() p: ParamsOf<Common['list']>, @Caller() caller: Principal): Promise<JsonText<ResultOf<Common['list']>>> {
      return this.statuses.list(kind, p.node, caller);
    }

    @Endpoint(endpoints.index)
    index(@Params() p: ParamsOf<Common['index']>): ResultOf<Common['index']> {
      return this.statuses.index(guestRef(kind, p));
    }

    @Endpoint(endpoints.destroy)
    destroy(@Params() p: ParamsOf<Common['destroy']>, @Caller() caller: Principal): Promise<string> {
      return this.destroys.destroy(guestRef(kind, p), p, caller);
    }

    @Endpoint(endpoints.status)
    status(@Params() p: ParamsOf<Common['status']>): ResultOf<Common['status']> {
      return this.statuses.current(guestRef(kind, p));
    }

    @Endpoint(endpoints.current)
    current(@Params() p: ParamsOf<Common['current']>): ResultOf<Common['current']> {
      return this.statuses.current(guestRef(kind, p));
    }

    @Endpoint(endpoints.start)
    start(@Params() p: ParamsOf<Common['start']>, @Caller() caller: Principal): Promise<string> {
      return this.power.start(guestRef(kind, p), caller);
    }

    @Endpoint(endpoints.stop)
    stop(@Params() p: ParamsOf<Common['stop']>, @Caller() caller: Principal): Promise<string> {
      return this.power.stop(guestRef(kind, p), caller);
    }

    @Endpoint(endpoints.shutdown)
    shutdown(@Params() p: ParamsOf<Common['shutdown']>, @Caller() caller: Principal): Promise<string> {
      return this.power.shutdown(guestRef(kind, p), p, caller);
    }

    @Endpoint(endpoints.reboot)
    reboot(@Params() p: ParamsOf<Common['reboot']>, @Caller() caller: Principal): Promise<string> {
      return this.power.reboot(guestRef(kind, p), p, caller);
    }

    @Endpoint(endpoints.resume)
    resume(@Params() p: ParamsOf<Common['resume']>, @Caller() caller: Principal): Promise<string> {
      return this.power.resume(guestRef(kind, p), caller);
    }

    @Endpoint(endpoints.config)
    config(@Params() p: ParamsOf<Common['config']>): ResultOf<Common['config']> {
      return this.configs.config(guestRef(kind, p));
    }

    @Endpoint(endpoints.clone)
    clone(@Params() p: ParamsOf<Common['clone']>, @Caller() caller: Principal): Promise<string> {
      const name = (p as { name?: string; hostname?: string }).name ?? (p as { hostname?: string }).hostname;
      return this.clones.clone(guestRef(kind, p), { ...p, ...(name !== undefined ? { name } : {}) }, caller);
    }

    @Endpoint(endpoints.setConfig)
    setConfig(@Params() p: ParamsOf<Common['setConfig']>, @Caller() caller: Principal): Promise<null> {
      return this.configs.setConfig(configUpdate(kind, p), caller);
    }
  }
  return GuestController;
}
