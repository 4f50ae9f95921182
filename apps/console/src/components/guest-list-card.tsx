import { Card, CardBody, CardTitle } from '@patternfly/react-core';
import type { Resource } from '../api/resources';
import { href } from '../routing';
import { labelOf } from './resource-tree';
import { StatusIcon } from './status-icon';

/** Guests as links to their views, by vmid, each with its state. */
export function GuestListCard({ guests }: { readonly guests: readonly Resource[] }) {
  return (
    <Card>
      <CardTitle>Guests</CardTitle>
      <CardBody>
        {guests.length === 0 ? 'No guests.' : null}
        <ul className="corral-plain-list">
          {[...guests]
            .sort((a, b) => (a.vmid ?? 0) - (b.vmid ?? 0))
            .map((guest) => (
              <li key={guest.id}>
                <a href={href({ view: 'guest', vmid: guest.vmid ?? 0 })}>
                  <StatusIcon resource={guest} /> {labelOf(guest)}
                </a>{' '}
                {guest.status}
              </li>
            ))}
        </ul>
      </CardBody>
    </Card>
  );
}
