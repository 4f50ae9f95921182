import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { LXC, QEMU, type GuestKind } from '../guest-kinds.js';
import { snapshotEndpoints } from './snapshot.endpoints.js';
import { SnapshotsService } from './snapshots.service.js';

type Endpoints = ReturnType<typeof snapshotEndpoints>;

export const QEMU_SNAPSHOT_ENDPOINTS = snapshotEndpoints(QEMU);
export const LXC_SNAPSHOT_ENDPOINTS = snapshotEndpoints(LXC);

/** The controller of a kind's snapshot endpoints: one line per endpoint into the snapshots service. */
function snapshotController(kind: GuestKind, endpoints: Endpoints) {
  @Controller()
  class SnapshotController {
    constructor(readonly snapshots: SnapshotsService) {}

    @Endpoint(endpoints.list)
    list(@Params() p: ParamsOf<Endpoints['list']>): Promise<ResultOf<Endpoints['list']>> {
      return this.snapshots.list(kind, p.node, p.vmid);
    }

    @Endpoint(endpoints.create)
    create(@Params() p: ParamsOf<Endpoints['create']>, @Caller() caller: Principal): Promise<string> {
      return this.snapshots.create(kind, p as ParamsOf<Endpoints['create']> & { vmstate?: boolean }, caller);
    }

    @Endpoint(endpoints.index)
    index(@Params() p: ParamsOf<Endpoints['index']>): Promise<ResultOf<Endpoints['index']>> {
      return this.snapshots.index(kind, p);
    }

    @Endpoint(endpoints.destroy)
    destroy(@Params() p: ParamsOf<Endpoints['destroy']>, @Caller() caller: Principal): Promise<string> {
      return this.snapshots.destroy(kind, p, caller);
    }

    @Endpoint(endpoints.rollback)
    rollback(@Params() p: ParamsOf<Endpoints['rollback']>, @Caller() caller: Principal): Promise<string> {
      return this.snapshots.rollback(kind, p, caller);
    }

    @Endpoint(endpoints.config)
    config(@Params() p: ParamsOf<Endpoints['config']>): Promise<ResultOf<Endpoints['config']>> {
      return this.snapshots.config(kind, p);
    }

    @Endpoint(endpoints.setConfig)
    setConfig(@Params() p: ParamsOf<Endpoints['setConfig']>): Promise<null> {
      return this.snapshots.setDescription(kind, p);
    }

    @Endpoint(endpoints.feature)
    feature(@Params() p: ParamsOf<Endpoints['feature']>): Promise<ResultOf<Endpoints['feature']>> {
      return this.snapshots.feature(kind, p) as Promise<ResultOf<Endpoints['feature']>>;
    }
  }
  return SnapshotController;
}

/** `/nodes/{node}/qemu/{vmid}/snapshot...` and `.../feature`. */
@Controller()
export class QemuSnapshotsController extends snapshotController(QEMU, QEMU_SNAPSHOT_ENDPOINTS) {}

/** `/nodes/{node}/lxc/{vmid}/snapshot...` and `.../feature`. */
@Controller()
export class LxcSnapshotsController extends snapshotController(LXC, LXC_SNAPSHOT_ENDPOINTS) {}
