import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from './metrics-registry.js';

/**
 * The cluster's event delivery, read from the database at each scrape (the same on every replica):
 * the events the webhook dispatcher has not read yet, and the webhook deliveries waiting to be
 * sent or given up (until their retention removes them).
 */
@Injectable()
export class EventMetrics {
  constructor(dataSource: DataSource, registry: MetricsRegistry) {
    new Gauge({
      name: 'corral_events_undispatched',
      help: 'Events recorded that the webhook dispatcher has not read yet.',
      registers: [registry],
      async collect() {
        const [row] = (await dataSource.query(
          `SELECT (SELECT COALESCE(max("seq"), 0) FROM "events") - (SELECT COALESCE(max("seq"), 0) FROM "notification_dispatch_cursor") AS "count"`,
        )) as { count: string }[];
        this.set(Number(row?.count ?? 0));
      },
    });
    new Gauge({
      name: 'corral_webhook_deliveries',
      help: 'Webhook deliveries waiting to be sent (pending) or given up (failed).',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const [row] = (await dataSource.query(
          `SELECT count(*) FILTER (WHERE "state" = 'pending') AS "pending", count(*) FILTER (WHERE "state" = 'failed') AS "failed" FROM "notification_deliveries"`,
        )) as { pending: string; failed: string }[];
        this.set({ state: 'pending' }, Number(row?.pending ?? 0));
        this.set({ state: 'failed' }, Number(row?.failed ?? 0));
      },
    });
  }
}
