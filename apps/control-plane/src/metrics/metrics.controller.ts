import { Controller } from '@nestjs/common';
import { Endpoint, type ResultOf } from '../http/endpoint.js';
import { getMetrics } from './metrics.endpoints.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { MetricsRegistry } from './metrics-registry.js';

@Controller()
export class MetricsController {
  constructor(
    private readonly registry: MetricsRegistry,
    private readonly http: HttpMetrics,
    private readonly cluster: ClusterMetrics,
  ) {}

  @Endpoint(getMetrics)
  async metrics(): Promise<ResultOf<typeof getMetrics>> {
    return (await this.registry.metrics()) + this.http.text() + this.cluster.text();
  }
}
