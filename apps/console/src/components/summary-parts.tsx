import type { ReactNode } from 'react';
import {
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Flex,
  Label,
  Title,
} from '@patternfly/react-core';
import type { Resource } from '../api/resources';
import { StatusIcon } from './status-icon';

/** A view's heading: the resource's icon, its name, and its state as a label. */
export function ResourceHeading({
  resource,
  title,
  testId,
}: {
  readonly resource: Resource;
  readonly title: string;
  readonly testId: string;
}) {
  const color = resource.status === 'online' || resource.status === 'running' ? 'green' : resource.status === 'offline' ? 'red' : 'grey';
  return (
    <Flex alignItems={{ default: 'alignItemsCenter' }} gap={{ default: 'gapSm' }}>
      <StatusIcon resource={resource} />
      <Title headingLevel="h1">{title}</Title>
      <Label color={color} data-testid={testId}>
        {resource.status}
      </Label>
    </Flex>
  );
}

/** Terms and what they are, side by side; a fact whose value is null is left out. */
export function Facts({ facts }: { readonly facts: readonly (readonly [string, ReactNode])[] }) {
  return (
    <DescriptionList isHorizontal>
      {facts
        .filter(([, value]) => value !== null)
        .map(([term, value]) => (
          <DescriptionListGroup key={term}>
            <DescriptionListTerm>{term}</DescriptionListTerm>
            <DescriptionListDescription>{value}</DescriptionListDescription>
          </DescriptionListGroup>
        ))}
    </DescriptionList>
  );
}
