import type { EventRow } from '../../../events/event.entity.js';
import { matches, rulesOf, severityOf, type EventFields } from '../matchers/matcher-rules.js';
import type { DispatchBatch, NewDelivery } from './deliveries.repository.js';

/**
 * The deliveries of a batch of events (docs/webhooks.md "Delivery"): one per event and enabled
 * webhook that an enabled matcher selecting the event names, however many do. Matchers are
 * evaluated now, at dispatch, with the guest's pool as it is now.
 */
export function planDeliveries(batch: DispatchBatch): NewDelivery[] {
  const matchers = batch.matchers
    .filter((matcher) => !matcher.row.disable)
    .flatMap((matcher) => {
      // Rules were checked when written; one a later version no longer reads selects nothing rather than stopping the dispatch of every event.
      try {
        return [{ rules: rulesOf(matcher.row), targets: matcher.targets }];
      } catch {
        return [];
      }
    });
  return batch.events.flatMap((event) => {
    const fields = fieldsOf(event);
    const webhooks = new Set(matchers.filter((matcher) => matches(matcher.rules, fields)).flatMap((matcher) => matcher.targets));
    const body = bodyOf(event);
    return [...webhooks]
      .filter((webhook) => batch.webhooks.has(webhook))
      .sort()
      .map((webhook) => ({
        webhook,
        orderingKey: event.vmid === null ? `node:${event.node}` : `vm:${event.vmid}`,
        eventSeq: Number(event.seq),
        eventId: event.id,
        event: event.event,
        node: event.node,
        vmid: event.vmid,
        body,
      }));
  });
}

/** The event's body, and nothing else: `event`, `vmid` (not for node events), `timestamp` (ISO 8601), `node`. */
export function bodyOf(event: Pick<EventRow, 'event' | 'vmid' | 'timestamp' | 'node'>): string {
  return JSON.stringify({
    event: event.event,
    ...(event.vmid !== null ? { vmid: event.vmid } : {}),
    timestamp: event.timestamp.toISOString(),
    node: event.node,
  });
}

function fieldsOf(event: EventRow & { readonly pool: string | null }): EventFields {
  return {
    type: event.event,
    node: event.node,
    ...(event.vmid !== null ? { vmid: String(event.vmid) } : {}),
    ...(event.pool !== null ? { pool: event.pool } : {}),
    severity: severityOf(event.event, event.details),
  };
}
