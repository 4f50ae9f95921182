import { z } from 'zod';
import { ALL_EVENT_KINDS } from '@corral/pve-formats/cluster-event-kinds';

/** One event as readers get it (docs/events.md): `event`, `vmid`, `timestamp`, `node`, with Corral's `seq`, `id` and `details`. */
export const EventEntry = z.object({
  seq: z.number().int().meta({ description: 'Its place in the order of all events: resume a stream after it with `since`.' }),
  id: z.string().meta({ description: 'A UUID: receivers drop duplicates by it.' }),
  event: z.enum(ALL_EVENT_KINDS),
  node: z.string(),
  vmid: z.number().int().optional().meta({ description: 'The guest; absent for node events.' }),
  timestamp: z.string().meta({ description: 'When it happened, ISO 8601 (UTC).' }),
  details: z
    .record(z.string(), z.unknown())
    .meta({ description: "What else is known: a backup's `status`, the agent's session of a guest event, ..." }),
});
export type EventEntry = z.infer<typeof EventEntry>;

/** A row of the `events` table as pg returns it (a bigint as text). */
export interface EventRecord {
  readonly seq: string;
  readonly id: string;
  readonly event: EventEntry['event'];
  readonly node: string;
  readonly vmid: number | null;
  readonly timestamp: Date;
  readonly details: Record<string, unknown>;
}

export function eventEntry(row: EventRecord): EventEntry {
  return {
    seq: Number(row.seq),
    id: row.id,
    event: row.event,
    node: row.node,
    ...(row.vmid === null ? {} : { vmid: row.vmid }),
    timestamp: row.timestamp.toISOString(),
    details: row.details,
  };
}
