import { useState } from 'react';
import type { ReactNode } from 'react';
import { Card, CardBody, CardTitle, PageSection, Stack, Tab, TabTitleText, Tabs } from '@patternfly/react-core';
import { isGuest, type Resource } from '../api/resources';
import { GuestListCard } from '../components/guest-list-card';
import { NodeDisks, NodeFirewall, NodeNetwork, NodeUpdates } from './node-tabs';
import { TaskList } from './tasks-view';
import { Graphs } from '../components/lazy-graphs';
import { ResourceUsage, StorageUsage } from '../components/resource-usage';
import { Facts, ResourceHeading } from '../components/summary-parts';
import { duration } from '../format';

/** The node's other tabs: what its agent reports of the host, and its tasks. */
const NODE_TABS: readonly (readonly [string, string, (base: string) => ReactNode])[] = [
  ['network', 'Network', (base) => <NodeNetwork base={base} />],
  ['disks', 'Disks', (base) => <NodeDisks base={base} />],
  ['firewall', 'Firewall', (base) => <NodeFirewall base={base} />],
  ['updates', 'Updates', (base) => <NodeUpdates base={base} />],
  ['tasks', 'Tasks', (base) => <TaskList path={`${base}/tasks`} />],
];

/** A node: its state, use and graphs, its guests and storages, its host's network, disks, firewall rules and updates, and its tasks. */
export function NodeView({ node, resources }: { readonly node: Resource; readonly resources: readonly Resource[] }) {
  const name = node.node ?? '';
  const children = resources.filter((r) => r.node === name && r.type !== 'node');
  const guests = children.filter(isGuest);
  const storages = children.filter((r) => r.type === 'storage');
  const base = `/nodes/${encodeURIComponent(name)}`;
  const [tab, setTab] = useState('summary');
  const summary = (
    <Stack hasGutter>
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
      <Graphs path={base} kind="node" />
      <GuestListCard guests={guests} />
      <Card>
        <CardTitle>Storages</CardTitle>
        <CardBody>
          <Stack hasGutter>
            {storages.map((storage) => (
              <StorageUsage key={storage.id} storage={storage} title={storage.storage ?? storage.id} />
            ))}
          </Stack>
        </CardBody>
      </Card>
    </Stack>
  );
  return (
    <PageSection>
      <ResourceHeading resource={node} title={`Node ${name}`} testId="node-status" />
      <Tabs activeKey={tab} onSelect={(_event, key) => setTab(String(key))} aria-label="Node" mountOnEnter unmountOnExit>
        {[['summary', 'Summary', () => summary] as const, ...NODE_TABS].map(([key, title, content]) => (
          <Tab key={key} eventKey={key} title={<TabTitleText>{title}</TabTitleText>}>
            <div className="corral-tab-body">{content(base)}</div>
          </Tab>
        ))}
      </Tabs>
    </PageSection>
  );
}
