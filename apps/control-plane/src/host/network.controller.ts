import { Controller } from '@nestjs/common';
import { AgentHub } from '../agents/agent-hub.js';
import { Caller, type Principal } from '../http/principal.js';
import { notFound } from '../errors/resource-errors.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { NodesService } from '../nodes/nodes.service.js';
import { commandParams, sameName } from '../agents/command-params.js';
import { HOST_READ_MS, HOST_TASK_MS, HOST_WRITE_MS } from '../agents/host-timeouts.js';
import { networkEntry, newInterfaceFields, PVE_NAME } from './network-mapping.js';
import { NETWORK_ENDPOINTS, type NetworkEntry } from './network.endpoints.js';

type Endpoints = typeof NETWORK_ENDPOINTS;

/**
 * `/nodes/{node}/network` as PVE manages it: changes go to the host's pending interfaces file
 * (`/etc/network/interfaces.new`) and take effect when `PUT` applies them.
 */
@Controller()
export class NetworkController {
  constructor(
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    private readonly tasks: TaskRunner,
  ) {}

  @Endpoint(NETWORK_ENDPOINTS.list)
  async list(@Params() { node, type }: ParamsOf<Endpoints['list']>): Promise<ResultOf<Endpoints['list']>> {
    const wanted = type === 'any_bridge' ? 'bridge' : type;
    return (await this.interfaces(node)).filter((entry) => wanted === undefined || entry.type === wanted);
  }

  @Endpoint(NETWORK_ENDPOINTS.get)
  async get(@Params() { node, iface }: ParamsOf<Endpoints['get']>): Promise<ResultOf<Endpoints['get']>> {
    const found = (await this.interfaces(node)).find((entry) => entry.iface === iface);
    if (!found) throw notFound(`interface '${iface}' on node '${node}'`);
    return found;
  }

  @Endpoint(NETWORK_ENDPOINTS.create)
  async create(@Params() { node, ...params }: ParamsOf<Endpoints['create']>): Promise<null> {
    this.nodes.existing(node);
    const fields = commandParams('node.network.create', newInterfaceFields(params), sameName(PVE_NAME));
    await this.hub.request(node, 'node.network.create', fields, { timeoutMs: HOST_WRITE_MS });
    return null;
  }

  @Endpoint(NETWORK_ENDPOINTS.remove)
  async remove(@Params() { node, iface }: ParamsOf<Endpoints['remove']>): Promise<null> {
    // Only an interface of the interfaces file can be removed: a card the kernel alone shows has no method.
    const found = (await this.interfaces(node)).find((entry) => entry.iface === iface);
    if (!found) throw notFound(`interface '${iface}' on node '${node}'`);
    if (found.method === undefined) throw notFound(`a stanza of interface '${iface}' in the interfaces file of node '${node}'`);
    await this.hub.request(node, 'node.network.delete', commandParams('node.network.delete', { iface }, sameName()), {
      timeoutMs: HOST_WRITE_MS,
    });
    return null;
  }

  @Endpoint(NETWORK_ENDPOINTS.apply)
  apply(@Params() { node }: ParamsOf<Endpoints['apply']>, @Caller() caller: Principal): Promise<string> {
    this.nodes.existing(node);
    // PVE's task for the same: `srvreload` of `networking`.
    return this.tasks.onAgent({ node, type: 'srvreload', id: 'networking', caller }, 'node.network.apply', {}, HOST_TASK_MS);
  }

  private async interfaces(node: string): Promise<NetworkEntry[]> {
    this.nodes.existing(node);
    const { interfaces } = await this.hub.request(node, 'node.network.list', {}, { timeoutMs: HOST_READ_MS });
    return interfaces.map(networkEntry);
  }
}
