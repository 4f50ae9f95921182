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
  nodeGraph(@Params() p: ParamsOf<typeof GRAPH_ENDPOINTS.node>): Promise<never> {
    return this.history.graph(this.history.nodeSeries(p.node));
  }

  @Endpoint(GRAPH_ENDPOINTS.qemu)
  qemuGraph(@Params() p: ParamsOf<typeof GRAPH_ENDPOINTS.qemu>): Promise<never> {
    return this.history.graph(this.history.guestSeries(QEMU, p.node, p.vmid));
  }

  @Endpoint(GRAPH_ENDPOINTS.lxc)
  lxcGraph(@Params() p: ParamsOf<typeof GRAPH_ENDPOINTS.lxc>): Promise<never> {
    return this.history.graph(this.history.guestSeries(LXC, p.node, p.vmid));
  }

  @Endpoint(GRAPH_ENDPOINTS.storage)
  storageGraph(@Params() p: ParamsOf<typeof GRAPH_ENDPOINTS.storage>): Promise<never> {
    return this.history.graph(this.history.storageSeries(p.node, p.storage));
  }
}
