import { Card, CardBody, CardTitle, PageSection, Stack } from '@patternfly/react-core';
import { isGuest, type Resource } from '../api/resources';
import { GuestListCard } from '../components/guest-list-card';
import { Graphs } from '../components/lazy-graphs';
import { ResourceUsage } from '../components/resource-usage';
import { Facts, ResourceHeading } from '../components/summary-parts';
import { UsageBar } from '../components/usage-bar';
import { bytes, duration } from '../format';

/** A node: its state and use, its guests and its storages. */
export function NodeView({ node, resources }: { readonly node: Resource; readonly resources: readonly Resource[] }) {
  const name = node.node ?? '';
  const children = resources.filter((r) => r.node === name && r.type !== 'node');
  const guests = children.filter(isGuest);
  const storages = children.filter((r) => r.type === 'storage');
  return (
    <PageSection>
      <ResourceHeading resource={node} title={`Node ${name}`} testId="node-status" />
      <Stack hasGutter className="corral-usage">
        <Card>
          <CardTitle>Summary</CardTitle>
          <CardBody>
            <Facts
              facts={[
                ['Uptime', duration(node.uptime)],
                ['Guests', `${guests.length} (${guests.filter((g) => g.status === 'running').length} running)`],
              ]}
            />
            <ResourceUsage resource={node} disk="Root disk" />
          </CardBody>
        </Card>
        <Graphs path={`/nodes/${encodeURIComponent(name)}`} kind="node" />
        <GuestListCard guests={guests} />
        <Card>
          <CardTitle>Storages</CardTitle>
          <CardBody>
            <Stack hasGutter>
              {storages.map((storage) => (
                <UsageBar
                  key={storage.id}
                  title={storage.storage ?? storage.id}
                  used={storage.disk ?? 0}
                  total={storage.maxdisk ?? 0}
                  text={storage.status === 'available' ? `${bytes(storage.disk)} of ${bytes(storage.maxdisk)}` : (storage.status ?? '')}
                />
              ))}
            </Stack>
          </CardBody>
        </Card>
      </Stack>
    </PageSection>
  );
}
