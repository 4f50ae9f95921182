import type { EventEntry } from './event-entry.js';
import type { EventKind } from '@corral/pve-formats/cluster-event-kinds';

/** Which events a reader asked for; an absent field matches every event. */
export interface EventFilter {
  readonly kinds?: readonly EventKind[];
  readonly node?: string;
  readonly vmid?: number;
}

/** The filter as a WHERE condition on `events`, its parameters numbered from `first`. */
export function filterSql(filter: EventFilter, first: number): { where: string; params: unknown[] } {
  return {
    where: `($${first}::text[] IS NULL OR "event" = ANY($${first})) AND ($${first + 1}::text IS NULL OR "node" = $${first + 1}) AND ($${first + 2}::integer IS NULL OR "vmid" = $${first + 2})`,
    params: [filter.kinds ?? null, filter.node ?? null, filter.vmid ?? null],
  };
}

/** The same filter on an event in memory (the live feed's). */
export function matches(filter: EventFilter, entry: EventEntry): boolean {
  return (
    (filter.kinds === undefined || filter.kinds.includes(entry.event)) &&
    (filter.node === undefined || entry.node === filter.node) &&
    (filter.vmid === undefined || entry.vmid === filter.vmid)
  );
}
