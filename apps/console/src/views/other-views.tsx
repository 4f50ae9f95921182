import { Card, CardBody, EmptyState, EmptyStateBody, PageSection, Title } from '@patternfly/react-core';
import { isGuest, type Resource } from '../api/resources';
import { GuestListCard } from '../components/guest-list-card';
import { StorageUsage } from '../components/resource-usage';
import { href } from '../routing';

/** A storage on one node and its space. */
export function StorageView({ storage }: { readonly storage: Resource }) {
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Storage {storage.storage} on {storage.node}
      </Title>
      <Card>
        <CardBody>
          <StorageUsage storage={storage} title="Space" />
        </CardBody>
      </Card>
    </PageSection>
  );
}

/** A pool and the guests in it. */
export function PoolView({ pool, resources }: { readonly pool: string; readonly resources: readonly Resource[] }) {
  const members = resources.filter((r) => isGuest(r) && r.pool === pool);
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Pool {pool}
      </Title>
      <GuestListCard guests={members} />
    </PageSection>
  );
}

/** What the URL names and the cluster does not hold (any more). */
export function Missing({ what }: { readonly what: string }) {
  return (
    <PageSection>
      <EmptyState titleText={`${what} does not exist`} headingLevel="h1">
        <EmptyStateBody>
          It may have been removed, or you may not see it. <a href={href({ view: 'dashboard' })}>Back to the datacenter</a>
        </EmptyStateBody>
      </EmptyState>
    </PageSection>
  );
}
