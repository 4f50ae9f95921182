import type { EntityManager } from 'typeorm';
import type { EventKind } from '@corral/pve-formats/cluster-event-kinds';

// Any constant; the same for every replica.
const EVENT_ORDER_LOCK = 0x65766e74; // "evnt"

/** The channel that carries the `seq` of each committed event to every replica. */
export const EVENTS_CHANNEL = 'corral_events';

export interface NewEvent {
  readonly event: EventKind;
  readonly node: string;
  readonly vmid?: number;
  /** When it happened; now by default. */
  readonly timestamp?: Date;
  readonly details?: Record<string, unknown>;
}

/**
 * Writes an event into the outbox within the caller's transaction, so it exists exactly when the
 * change it reports does. Writers take turns until commit, so events commit in `seq` order: a
 * reader that has seen `seq` n never finds a smaller one committed later.
 */
export async function recordEvent(db: EntityManager, event: NewEvent): Promise<number> {
  await db.query('SELECT pg_advisory_xact_lock($1)', [EVENT_ORDER_LOCK]);
  const [row] = (await db.query(
    'INSERT INTO "events" ("event", "node", "vmid", "timestamp", "details") VALUES ($1, $2, $3, $4, $5) RETURNING "seq"',
    [event.event, event.node, event.vmid ?? null, event.timestamp ?? new Date(), JSON.stringify(event.details ?? {})],
  )) as [{ seq: string }];
  await db.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, row.seq]);
  return Number(row.seq);
}
