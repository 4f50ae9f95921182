import { Stack } from '@patternfly/react-core';
import type { Resource } from '../api/resources';
import { bytes } from '../format';
import { UsageBar } from './usage-bar';

/** A node's or a guest's CPU, memory and disk, as `/cluster/resources` gives them. */
export function ResourceUsage({ resource, disk }: { readonly resource: Resource; readonly disk: string }) {
  const cpus = resource.maxcpu ?? 0;
  return (
    <Stack hasGutter className="corral-usage">
      <UsageBar
        title="CPU"
        used={(resource.cpu ?? 0) * cpus}
        total={cpus}
        text={`${((resource.cpu ?? 0) * 100).toFixed(1)} % of ${cpus} CPU`}
      />
      <UsageBar
        title="Memory"
        used={resource.mem ?? 0}
        total={resource.maxmem ?? 0}
        text={`${bytes(resource.mem)} of ${bytes(resource.maxmem)}`}
      />
      <UsageBar
        title={disk}
        used={resource.disk ?? 0}
        total={resource.maxdisk ?? 0}
        text={`${bytes(resource.disk)} of ${bytes(resource.maxdisk)}`}
      />
    </Stack>
  );
}

/** A storage's space on its node, or its state where it is not available. */
export function StorageUsage({ storage, title }: { readonly storage: Resource; readonly title: string }) {
  return (
    <UsageBar
      title={title}
      used={storage.disk ?? 0}
      total={storage.maxdisk ?? 0}
      text={storage.status === 'available' ? `${bytes(storage.disk)} of ${bytes(storage.maxdisk)}` : (storage.status ?? '')}
    />
  );
}
