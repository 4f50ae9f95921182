import { Controller } from '@nestjs/common';
import { Endpoint, type ResultOf } from '../http/endpoint.js';
import { HEALTH_ENDPOINTS } from './health.endpoints.js';
import { Readiness } from './readiness.js';

type Endpoints = typeof HEALTH_ENDPOINTS;

@Controller()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Endpoint(HEALTH_ENDPOINTS.live)
  live(): ResultOf<Endpoints['live']> {
    return { status: 'live' };
  }

  @Endpoint(HEALTH_ENDPOINTS.ready)
  async ready(): Promise<ResultOf<Endpoints['ready']>> {
    await this.readiness.check();
    return { status: 'ready' };
  }
}
