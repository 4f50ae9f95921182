import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram } from 'prom-client';
import { API_PREFIX } from '../http/endpoint-registry.js';
import { MetricsRegistry } from './metrics-registry.js';

/** Latency buckets in seconds: a read takes a millisecond, a large list a tenth of a second, a slow node seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Counts every answered request by method, route (its template, `:node` as the router names it;
 * `unmatched` where no route matched) and status, and its time until the answer was sent.
 */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route'>;

  constructor(
    private readonly adapter: HttpAdapterHost,
    registry: MetricsRegistry,
  ) {
    this.requests = new Counter({
      name: 'corral_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.durations = new Histogram({
      name: 'corral_http_request_duration_seconds',
      help: 'Time from the request to its answer, by method and route template.',
      labelNames: ['method', 'route'],
      buckets: BUCKETS,
      registers: [registry],
    });
  }

  /** Before the server listens: Fastify takes hooks until it is ready. */
  onModuleInit(): void {
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const url = request.routeOptions.url;
      const route = url === undefined ? 'unmatched' : url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url;
      const labels = { method: request.method, route };
      this.requests.inc({ ...labels, status: String(reply.statusCode) });
      this.durations.observe(labels, reply.elapsedTime / 1000);
      done();
    });
  }
}
