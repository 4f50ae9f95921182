import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { TASKS_ENDPOINTS } from './tasks.endpoints.js';
import { TasksService } from './tasks.service.js';

type Endpoints = typeof TASKS_ENDPOINTS;

@Controller()
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Endpoint(TASKS_ENDPOINTS.list)
  list(@Params() params: ParamsOf<Endpoints['list']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['list']>> {
    const { node, ...filters } = params;
    return this.tasks.list(node, caller, filters);
  }

  @Endpoint(TASKS_ENDPOINTS.index)
  index(@Params() params: ParamsOf<Endpoints['index']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['index']>> {
    return this.tasks.index(params.node, params.upid, caller);
  }

  @Endpoint(TASKS_ENDPOINTS.stop)
  stop(@Params() params: ParamsOf<Endpoints['stop']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['stop']>> {
    return this.tasks.stop(params.node, params.upid, caller);
  }

  @Endpoint(TASKS_ENDPOINTS.status)
  status(@Params() params: ParamsOf<Endpoints['status']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['status']>> {
    return this.tasks.status(params.node, params.upid, caller, params.wait);
  }

  @Endpoint(TASKS_ENDPOINTS.log)
  log(@Params() params: ParamsOf<Endpoints['log']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['log']>> {
    return this.tasks.log(params.node, params.upid, caller, params.start, params.limit);
  }

  @Endpoint(TASKS_ENDPOINTS.cluster)
  cluster(@Caller() caller: Principal): Promise<ResultOf<Endpoints['cluster']>> {
    return this.tasks.cluster(caller);
  }
}
