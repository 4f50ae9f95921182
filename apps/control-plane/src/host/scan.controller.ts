import { Controller } from '@nestjs/common';
import type { StorageScan } from '@corral/protocol';
import { AgentHub } from '../agents/agent-hub.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { NodesService } from '../nodes/nodes.service.js';
import { HOST_READ_MS } from '../agents/host-timeouts.js';
import { SCAN_ENDPOINTS } from './scan.endpoints.js';

type Endpoints = typeof SCAN_ENDPOINTS;

/** `/nodes/{node}/scan`: what local storage the host can offer, found by its agent. */
@Controller()
export class ScanController {
  constructor(
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
  ) {}

  @Endpoint(SCAN_ENDPOINTS.all)
  async all(@Params() { node }: ParamsOf<Endpoints['all']>): Promise<ResultOf<Endpoints['all']>> {
    const { lvm, zfs, directories } = await this.scan(node);
    return { lvm, zfs, dir: directories.map(({ fsType, ...dir }) => ({ ...dir, type: fsType })) };
  }

  @Endpoint(SCAN_ENDPOINTS.lvm)
  async lvm(@Params() { node }: ParamsOf<Endpoints['lvm']>): Promise<ResultOf<Endpoints['lvm']>> {
    return (await this.scan(node)).lvm;
  }

  @Endpoint(SCAN_ENDPOINTS.zfs)
  async zfs(@Params() { node }: ParamsOf<Endpoints['zfs']>): Promise<ResultOf<Endpoints['zfs']>> {
    return (await this.scan(node)).zfs;
  }

  private scan(node: string): Promise<StorageScan> {
    this.nodes.existing(node);
    return this.hub.request(node, 'node.storage.scan', {}, { timeoutMs: HOST_READ_MS });
  }
}
