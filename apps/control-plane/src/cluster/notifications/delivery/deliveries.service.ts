import { Injectable } from '@nestjs/common';
import { notFound } from '../../../errors/resource-errors.js';
import type { ParamsOf } from '../../../http/endpoint.js';
import { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import type { DeliveryEndpoints, DeliveryEntry } from './deliveries.endpoints.js';
import type { DeliveryRow } from './delivery.entity.js';

const DEFAULT_LIMIT = 50;

/** A webhook's deliveries as the API shows them (docs/webhooks.md "Deliveries"). */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly webhooks: WebhooksRepository,
  ) {}

  async list(params: ParamsOf<DeliveryEndpoints['list']>): Promise<DeliveryEntry[]> {
    if (!(await this.webhooks.find(params.name))) throw notFound(`webhook '${params.name}'`);
    return (await this.deliveries.recent(params.name, params.limit ?? DEFAULT_LIMIT, params.state)).map(entryOf);
  }
}

function entryOf(row: DeliveryRow): DeliveryEntry {
  return {
    id: Number(row.id),
    'event-seq': row.eventSeq,
    'event-id': row.eventId,
    event: row.event,
    node: row.node,
    ...(row.vmid !== null ? { vmid: row.vmid } : {}),
    state: row.state,
    attempts: row.attempts,
    created: seconds(row.created),
    ...(row.lastAttempt !== null ? { 'last-attempt': seconds(row.lastAttempt) } : {}),
    ...(row.lastStatus !== null ? { 'last-status': row.lastStatus } : {}),
    ...(row.lastError !== null ? { 'last-error': row.lastError } : {}),
    ...(row.state === 'pending' ? { 'next-attempt': seconds(row.nextAttempt) } : {}),
  };
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
