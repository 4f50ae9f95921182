import { Controller } from '@nestjs/common';
import { Endpoint, type ResultOf } from '../http/endpoint.js';
import { getMetrics } from './metrics.endpoints.js';
import { MetricsRegistry } from './metrics-registry.js';

@Controller()
export class MetricsController {
  constructor(private readonly registry: MetricsRegistry) {}

  @Endpoint(getMetrics)
  metrics(): Promise<ResultOf<typeof getMetrics>> {
    return this.registry.metrics();
  }
}
