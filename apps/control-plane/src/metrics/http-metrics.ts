import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../http/endpoint-registry.js';
import { escape, header } from './text-format.js';

/** Latency buckets in seconds: a read takes a millisecond, a large list a tenth of a second, a slow node seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REQUESTS = 'corral_http_requests_total';
const DURATIONS = 'corral_http_request_duration_seconds';

/** One method and route's requests: how many ended with each status, and their times in buckets. */
interface RouteCounts {
  /** `method="GET",route="/version"`. */
  readonly labels: string;
  readonly statuses: Map<number, number>;
  /** Requests per bucket, each counted in the first bucket it fits (made cumulative when written). */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * Counts every answered request by method, route (its template, `:node` as the router names it;
 * `unmatched` where no route matched) and status, and its time until the answer was sent. Kept as
 * plain counts and written as text at a scrape: prom-client's labelled counter and histogram
 * checked and hashed the labels at every request, some 4 % of the time a request takes.
 */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  private readonly routes = new Map<string, RouteCounts>();

  constructor(private readonly adapter: HttpAdapterHost) {}

  /** Before the server listens: Fastify takes hooks until it is ready. */
  onModuleInit(): void {
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const url = request.routeOptions.url;
      const route = url === undefined ? 'unmatched' : url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url;
      this.count(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  count(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let counts = this.routes.get(key);
    if (counts === undefined) {
      counts = {
        labels: `method="${escape(method)}",route="${escape(route)}"`,
        statuses: new Map(),
        buckets: BUCKETS.map(() => 0),
        sum: 0,
        count: 0,
      };
      this.routes.set(key, counts);
    }
    counts.statuses.set(status, (counts.statuses.get(status) ?? 0) + 1);
    const bucket = BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) counts.buckets[bucket] = (counts.buckets[bucket] ?? 0) + 1;
    counts.sum += seconds;
    counts.count += 1;
  }

  /** The requests' families in the Prometheus text format. */
  text(): string {
    let text = header(REQUESTS, 'HTTP requests answered, by method, route template and status code.', 'counter');
    for (const { labels, statuses } of this.routes.values())
      for (const [status, count] of statuses) text += `${REQUESTS}{${labels},status="${status}"} ${count}\n`;
    text += header(DURATIONS, 'Time from the request to its answer, by method and route template.', 'histogram');
    for (const { labels, buckets, sum, count } of this.routes.values()) {
      let below = 0;
      BUCKETS.forEach((bound, index) => {
        below += buckets[index] ?? 0;
        text += `${DURATIONS}_bucket{le="${bound}",${labels}} ${below}\n`;
      });
      text += `${DURATIONS}_bucket{le="+Inf",${labels}} ${count}\n${DURATIONS}_sum{${labels}} ${sum}\n${DURATIONS}_count{${labels}} ${count}\n`;
    }
    return text;
  }
}
