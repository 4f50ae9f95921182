import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, FormSelect, FormSelectOption, PageSection, Title, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { ALL_EVENT_KINDS } from '@corral/pve-formats/cluster-event-kinds';
import { call } from '../api/client';
import type { ClusterEvent } from '../api/live-events';
import { EventList, newestFirst } from '../components/event-list';

const SHOWN = 200;

/** The cluster's events as they happen (the live stream), after the newest ones, optionally of one kind. */
export function EventsView({ live }: { readonly live: readonly ClusterEvent[] }) {
  const [kind, setKind] = useState('');
  const recent = useQuery({
    queryKey: ['cluster', 'events', 'page', kind],
    queryFn: () => call<ClusterEvent[]>('GET', '/cluster/events', { limit: SHOWN, 'event-type': kind || undefined }),
  });
  const events = newestFirst([...live.filter((event) => !kind || event.event === kind), ...(recent.data ?? [])], SHOWN);
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Events
      </Title>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <FormSelect value={kind} onChange={(_event, value) => setKind(value)} aria-label="Kind">
              <FormSelectOption value="" label="every kind" />
              {ALL_EVENT_KINDS.map((k) => (
                <FormSelectOption key={k} value={k} label={k} />
              ))}
            </FormSelect>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      {recent.isError && <Alert isInline variant="danger" title={recent.error.message} />}
      <EventList events={events} label="Events" />
    </PageSection>
  );
}
