import { Controller } from '@nestjs/common';
import { AgentHub } from '../agents/agent-hub.js';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { NodesService } from '../nodes/nodes.service.js';
import { APT_ENDPOINTS } from './apt.endpoints.js';
import { commandParams, sameName } from '../agents/command-params.js';
import { HOST_READ_MS, HOST_TASK_MS } from '../agents/host-timeouts.js';

type Endpoints = typeof APT_ENDPOINTS;

/** `/nodes/{node}/apt`: the host's packages, through its agent's apt. */
@Controller()
export class AptController {
  constructor(
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    private readonly tasks: TaskRunner,
  ) {}

  @Endpoint(APT_ENDPOINTS.index)
  index(@Params() { node }: ParamsOf<Endpoints['index']>): ResultOf<Endpoints['index']> {
    this.nodes.existing(node);
    return [{ id: 'changelog' }, { id: 'update' }];
  }

  @Endpoint(APT_ENDPOINTS.upgradable)
  async upgradable(@Params() { node }: ParamsOf<Endpoints['upgradable']>): Promise<ResultOf<Endpoints['upgradable']>> {
    this.nodes.existing(node);
    const packages = await this.hub.request(node, 'node.apt.upgradable', {}, { timeoutMs: HOST_READ_MS });
    return packages.map((p) => ({
      Package: p.package,
      Title: p.title,
      Version: p.version,
      OldVersion: p.oldVersion,
      Arch: p.arch,
      ...(p.origin !== undefined ? { Origin: p.origin } : {}),
      ...(p.priority !== undefined ? { Priority: p.priority } : {}),
      ...(p.section !== undefined ? { Section: p.section } : {}),
      ...(p.description !== undefined ? { Description: p.description } : {}),
    }));
  }

  @Endpoint(APT_ENDPOINTS.update)
  update(@Params() { node }: ParamsOf<Endpoints['update']>, @Caller() caller: Principal): Promise<string> {
    this.nodes.existing(node);
    return this.tasks.onAgent({ node, type: 'aptupdate', id: '', caller }, 'node.apt.update', {}, HOST_TASK_MS);
  }

  @Endpoint(APT_ENDPOINTS.changelog)
  changelog(@Params() { node, ...package_ }: ParamsOf<Endpoints['changelog']>): Promise<string> {
    this.nodes.existing(node);
    return this.hub.request(node, 'node.apt.changelog', commandParams('node.apt.changelog', package_, sameName()), {
      timeoutMs: HOST_READ_MS,
    });
  }
}
