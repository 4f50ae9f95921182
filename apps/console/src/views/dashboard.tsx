import { useQuery } from '@tanstack/react-query';
import { Card, CardBody, CardTitle, Gallery, Label, PageSection, Stack, Title } from '@patternfly/react-core';
import { call } from '../api/client';
import type { ClusterEvent } from '../api/live-events';
import { isGuest, type Resource } from '../api/resources';
import { EventList, newestFirst } from '../components/event-list';
import { ClusterGraphs } from '../components/lazy-graphs';
import { UsageBar } from '../components/usage-bar';
import { bytes } from '../format';
import { href } from '../routing';

interface HaEntry {
  readonly id: string;
  readonly type: string;
  readonly status: string;
  readonly state?: string;
}

/** The cluster at a glance: health, counts by state, what is used of CPU, memory and storage, HA, and the newest events. */
export function Dashboard({ resources, live }: { readonly resources: readonly Resource[]; readonly live: readonly ClusterEvent[] }) {
  const ha = useQuery({
    queryKey: ['cluster', 'ha', 'status'],
    queryFn: () => call<HaEntry[]>('GET', '/cluster/ha/status/current'),
    refetchInterval: 10_000,
  });
  const recent = useQuery({
    queryKey: ['cluster', 'events', 'recent'],
    queryFn: () => call<ClusterEvent[]>('GET', '/cluster/events', { limit: 20 }),
  });
  const nodes = resources.filter((r) => r.type === 'node');
  const online = nodes.filter((n) => n.status === 'online');
  const guests = resources.filter(isGuest);
  const storages = resources.filter((r) => r.type === 'storage' && r.status === 'available');
  const count = (type: string, status: string) => guests.filter((g) => g.type === type && g.status === status && !g.template).length;
  const sum = (list: readonly Resource[], pick: (r: Resource) => number | undefined) =>
    list.reduce((total, r) => total + (pick(r) ?? 0), 0);
  const cores = sum(online, (n) => n.maxcpu);
  const busy = sum(online, (n) => (n.cpu ?? 0) * (n.maxcpu ?? 0));
  const events = newestFirst([...live, ...(recent.data ?? [])], 20);
  const services = (ha.data ?? []).filter((entry) => entry.type === 'service');
  const quorum = (ha.data ?? []).find((entry) => entry.type === 'quorum');

  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Datacenter
      </Title>
      <Gallery hasGutter minWidths={{ default: '260px' }}>
        <Card>
          <CardTitle>Health</CardTitle>
          <CardBody data-testid="health">
            <Label color={online.length === nodes.length ? 'green' : 'red'}>
              {online.length} of {nodes.length} nodes online
            </Label>
            {nodes
              .filter((n) => n.status !== 'online')
              .map((n) => (
                <p key={n.id}>
                  <a href={href({ view: 'node', node: n.node ?? '' })}>{n.node}</a> is {n.status}
                </p>
              ))}
          </CardBody>
        </Card>
        <Card>
          <CardTitle>Guests</CardTitle>
          <CardBody data-testid="guest-counts">
            <p>
              VMs: {count('qemu', 'running')} running, {count('qemu', 'stopped')} stopped
            </p>
            <p>
              Containers: {count('lxc', 'running')} running, {count('lxc', 'stopped')} stopped
            </p>
            <p>Templates: {guests.filter((g) => g.template).length}</p>
          </CardBody>
        </Card>
        <Card>
          <CardTitle>Use</CardTitle>
          <CardBody>
            <Stack hasGutter>
              <UsageBar title="CPU" used={busy} total={cores} text={`${busy.toFixed(1)} of ${cores} cores`} />
              <UsageBar
                title="Memory"
                used={sum(online, (n) => n.mem)}
                total={sum(online, (n) => n.maxmem)}
                text={`${bytes(sum(online, (n) => n.mem))} of ${bytes(sum(online, (n) => n.maxmem))}`}
              />
              <UsageBar
                title="Storage"
                used={sum(storages, (s) => s.disk)}
                total={sum(storages, (s) => s.maxdisk)}
                text={`${bytes(sum(storages, (s) => s.disk))} of ${bytes(sum(storages, (s) => s.maxdisk))}`}
              />
            </Stack>
          </CardBody>
        </Card>
        <Card>
          <CardTitle>High availability</CardTitle>
          <CardBody>
            {ha.isError ? (
              <p>{ha.error.message}</p>
            ) : (
              <>
                <p>Quorum: {quorum?.status ?? '-'}</p>
                <p>
                  {services.length} guest{services.length === 1 ? '' : 's'} under HA
                  {services.length > 0 ? `, ${services.filter((s) => s.state === 'started').length} started` : ''}
                </p>
              </>
            )}
          </CardBody>
        </Card>
      </Gallery>
      <Title headingLevel="h2" className="corral-heading">
        History
      </Title>
      <ClusterGraphs nodes={online.map((n) => n.node ?? '').sort()} />
      <Title headingLevel="h2" className="corral-heading">
        Recent events
      </Title>
      <EventList events={events} label="Recent events" />
    </PageSection>
  );
}
