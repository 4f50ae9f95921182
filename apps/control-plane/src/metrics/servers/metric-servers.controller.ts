import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { MetricPush } from './metric-push.js';
import { METRIC_SERVER_ENDPOINTS, type MetricServerEndpoints } from './metric-servers.endpoints.js';
import { MetricServersService } from './metric-servers.service.js';

/** `/cluster/metrics`: the external metric servers and the export of the newest figures. */
@Controller()
export class MetricServersController {
  constructor(
    private readonly servers: MetricServersService,
    private readonly push: MetricPush,
  ) {}

  @Endpoint(METRIC_SERVER_ENDPOINTS.index)
  index(): ResultOf<MetricServerEndpoints['index']> {
    return [{ name: 'server' }, { name: 'export' }];
  }

  @Endpoint(METRIC_SERVER_ENDPOINTS.list)
  list(): Promise<ResultOf<MetricServerEndpoints['list']>> {
    return this.servers.list();
  }

  @Endpoint(METRIC_SERVER_ENDPOINTS.create)
  async create(@Params() params: ParamsOf<MetricServerEndpoints['create']>): Promise<null> {
    await this.servers.create(params);
    return null;
  }

  @Endpoint(METRIC_SERVER_ENDPOINTS.get)
  get(@Params() params: ParamsOf<MetricServerEndpoints['get']>): Promise<ResultOf<MetricServerEndpoints['get']>> {
    return this.servers.get(params.id);
  }

  @Endpoint(METRIC_SERVER_ENDPOINTS.update)
  async update(@Params() params: ParamsOf<MetricServerEndpoints['update']>): Promise<null> {
    await this.servers.update(params);
    return null;
  }

  @Endpoint(METRIC_SERVER_ENDPOINTS.remove)
  async remove(@Params() params: ParamsOf<MetricServerEndpoints['remove']>): Promise<null> {
    await this.servers.remove(params.id);
    return null;
  }

  /** PVE's `local-only` means its own node: here, the nodes whose agents this replica holds. */
  @Endpoint(METRIC_SERVER_ENDPOINTS.export)
  export(@Params() params: ParamsOf<MetricServerEndpoints['export']>): ResultOf<MetricServerEndpoints['export']> {
    return { data: this.push.exported(params) };
  }
}
