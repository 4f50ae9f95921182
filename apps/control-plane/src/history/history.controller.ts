import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { LXC, QEMU } from '../guests/guest-kinds.js';
import { GRAPH_ENDPOINTS, HISTORY_ENDPOINTS as E } from './history.endpoints.js';
import { type HistoryPoint, HistoryService } from './history.service.js';

@Controller()
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Endpoint(E.node)
  node(@Params() p: ParamsOf<typeof E.node>): Promise<HistoryPoint[]> {
    return this.history.node(p.node, p);
  }

  @Endpoint(E.qemu)
  qemu(@Params() p: ParamsOf<typeof E.qemu>): Promise<HistoryPoint[]> {
    return this.history.guest(QEMU, p.node, p.vmid, p);
  }

  @Endpoint(E.lxc)
  lxc(@Params() p: ParamsOf<typeof E.lxc>): Promise<HistoryPoint[]> {
    return this.history.guest(LXC, p.node, p.vmid, p);
  }

  @Endpoint(E.storage)
  storage(@Params() p: ParamsOf<typeof E.storage>): Promise<HistoryPoint[]> {
    return this.history.storage(p.node, p.storage, p);
  }

  @Endpoint(GRAPH_ENDPOINTS.node)
  nodeGraph(): never {
    return this.history.graph();
  }

  @Endpoint(GRAPH_ENDPOINTS.qemu)
  qemuGraph(): never {
    return this.history.graph();
  }

  @Endpoint(GRAPH_ENDPOINTS.lxc)
  lxcGraph(): never {
    return this.history.graph();
  }

  @Endpoint(GRAPH_ENDPOINTS.storage)
  storageGraph(): never {
    return this.history.graph();
  }
}
