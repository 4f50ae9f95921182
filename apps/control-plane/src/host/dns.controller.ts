import { Controller } from '@nestjs/common';
import { AgentHub } from '../agents/agent-hub.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { NodesService } from '../nodes/nodes.service.js';
import { commandParams } from '../agents/command-params.js';
import { DNS_ENDPOINTS } from './dns.endpoints.js';
import { HOST_READ_MS, HOST_WRITE_MS } from '../agents/host-timeouts.js';

type Endpoints = typeof DNS_ENDPOINTS;

/** `/nodes/{node}/dns` (PVE's names: `search`, `dns1`..`dns3`), read and written by the node's agent. */
@Controller()
export class DnsController {
  constructor(
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
  ) {}

  @Endpoint(DNS_ENDPOINTS.get)
  async get(@Params() { node }: ParamsOf<Endpoints['get']>): Promise<ResultOf<Endpoints['get']>> {
    this.nodes.existing(node);
    const { search, servers } = await this.hub.request(node, 'node.dns.get', {}, { timeoutMs: HOST_READ_MS });
    const [dns1, dns2, dns3] = servers;
    return {
      ...(search.length > 0 ? { search: search.join(' ') } : {}),
      ...(dns1 ? { dns1 } : {}),
      ...(dns2 ? { dns2 } : {}),
      ...(dns3 ? { dns3 } : {}),
    };
  }

  @Endpoint(DNS_ENDPOINTS.set)
  async set(@Params() { node, search, ...dns }: ParamsOf<Endpoints['set']>): Promise<null> {
    this.nodes.existing(node);
    const given = (['dns1', 'dns2', 'dns3'] as const).filter((key) => dns[key] !== undefined);
    const settings = commandParams(
      'node.dns.set',
      { search: search.split(/\s+/).filter(Boolean), servers: given.map((key) => dns[key]) },
      (path) => (path[0] === 'servers' && typeof path[1] === 'number' ? (given[path[1]] ?? 'dns1') : 'search'),
    );
    await this.hub.request(node, 'node.dns.set', settings, { timeoutMs: HOST_WRITE_MS });
    return null;
  }
}
