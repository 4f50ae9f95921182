import type { ClusterEvent } from '../api/live-events';
import { href } from '../routing';
import { RowList } from './row-list';

/** Events from several reads (the live stream, a page read at the start), each once, newest first. */
export function newestFirst(events: readonly ClusterEvent[], count: number): ClusterEvent[] {
  const seen = new Set<string>();
  return events
    .filter((event) => !seen.has(event.id) && seen.add(event.id))
    .sort((a, b) => b.seq - a.seq)
    .slice(0, count);
}

/** Events as rows: when, what, and the guest and node as links. */
export function EventList({ events, label }: { readonly events: readonly ClusterEvent[]; readonly label: string }) {
  return (
    <RowList
      label={label}
      testId="events"
      rows={events.map((event) => ({
        key: event.id,
        cells: [
          new Date(event.timestamp).toLocaleString(),
          event.event,
          <>
            {event.vmid !== undefined ? <a href={href({ view: 'guest', vmid: event.vmid })}>{event.vmid}</a> : null} on{' '}
            <a href={href({ view: 'node', node: event.node })}>{event.node}</a>
          </>,
        ],
      }))}
    />
  );
}
