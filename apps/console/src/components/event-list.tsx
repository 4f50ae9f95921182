import { DataList, DataListCell, DataListItem, DataListItemCells, DataListItemRow } from '@patternfly/react-core';
import type { ClusterEvent } from '../api/live-events';
import { href } from '../routing';

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
    <DataList aria-label={label} isCompact data-testid="events">
      {events.map((event) => (
        <DataListItem key={event.id}>
          <DataListItemRow>
            <DataListItemCells
              dataListCells={[
                <DataListCell key="time">{new Date(event.timestamp).toLocaleString()}</DataListCell>,
                <DataListCell key="event">{event.event}</DataListCell>,
                <DataListCell key="what">
                  {event.vmid !== undefined ? <a href={href({ view: 'guest', vmid: event.vmid })}>{event.vmid}</a> : null} on{' '}
                  <a href={href({ view: 'node', node: event.node })}>{event.node}</a>
                </DataListCell>,
              ]}
            />
          </DataListItemRow>
        </DataListItem>
      ))}
    </DataList>
  );
}
