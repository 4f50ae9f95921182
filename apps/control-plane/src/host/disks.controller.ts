import { Controller } from '@nestjs/common';
import { basename } from 'node:path';
import { AgentHub } from '../agents/agent-hub.js';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { NodesService } from '../nodes/nodes.service.js';
import { commandParams, sameName } from '../agents/command-params.js';
import { DISKS_ENDPOINTS } from './disks.endpoints.js';
import { HOST_READ_MS, HOST_TASK_MS } from '../agents/host-timeouts.js';

type Endpoints = typeof DISKS_ENDPOINTS;

/** The host's disks on PVE's `/nodes/{node}/disks/...` and Corral's `/nodes/{node}/disk`. */
@Controller()
export class DisksController {
  constructor(
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    private readonly tasks: TaskRunner,
  ) {}

  @Endpoint(DISKS_ENDPOINTS.index)
  index(@Params() { node }: ParamsOf<Endpoints['index']>): ResultOf<Endpoints['index']> {
    this.nodes.existing(node);
    return [{ name: 'initgpt' }, { name: 'list' }];
  }

  @Endpoint(DISKS_ENDPOINTS.list)
  list(@Params() { node }: ParamsOf<Endpoints['list']>): Promise<ResultOf<Endpoints['list']>> {
    return this.disks(node);
  }

  @Endpoint(DISKS_ENDPOINTS.specList)
  specList(@Params() { node }: ParamsOf<Endpoints['specList']>): Promise<ResultOf<Endpoints['specList']>> {
    return this.disks(node);
  }

  @Endpoint(DISKS_ENDPOINTS.initGpt)
  initGpt(@Params() params: ParamsOf<Endpoints['initGpt']>, @Caller() caller: Principal): Promise<string> {
    return this.init(params, caller);
  }

  @Endpoint(DISKS_ENDPOINTS.specInitGpt)
  specInitGpt(@Params() params: ParamsOf<Endpoints['specInitGpt']>, @Caller() caller: Principal): Promise<string> {
    return this.init(params, caller);
  }

  private async disks(node: string): Promise<ResultOf<Endpoints['list']>> {
    this.nodes.existing(node);
    const disks = await this.hub.request(node, 'node.disks.list', {}, { timeoutMs: HOST_READ_MS });
    return disks.map(({ gpt, mounted, ...disk }) => ({ ...disk, gpt: gpt ? 1 : 0, mounted: mounted ? 1 : 0, osdid: -1, 'osdid-list': [] }));
  }

  private init({ node, ...disk }: ParamsOf<Endpoints['initGpt']>, caller: Principal): Promise<string> {
    this.nodes.existing(node);
    const params = commandParams('node.disks.init-gpt', disk, sameName());
    return this.tasks.onAgent({ node, type: 'diskinit', id: basename(params.disk), caller }, 'node.disks.init-gpt', params, HOST_TASK_MS);
  }
}
