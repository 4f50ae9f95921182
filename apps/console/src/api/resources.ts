import { useQuery } from '@tanstack/react-query';
import { call } from './client';

/** One entry of `GET /cluster/resources`, the fields the console reads. */
export interface Resource {
  readonly id: string;
  readonly type: 'node' | 'qemu' | 'lxc' | 'storage' | 'pool' | 'sdn';
  readonly node?: string;
  readonly status?: string;
  readonly name?: string;
  readonly vmid?: number;
  readonly pool?: string;
  readonly storage?: string;
  readonly template?: number;
  readonly cpu?: number;
  readonly maxcpu?: number;
  readonly mem?: number;
  readonly maxmem?: number;
  readonly disk?: number;
  readonly maxdisk?: number;
  readonly uptime?: number;
}

export const RESOURCES_KEY = ['cluster', 'resources'] as const;
/** CPU and memory figures have no event: the list is read again every 10 s, and at once when an event arrives. */
const REFRESH_MS = 10_000;

export function useResources() {
  return useQuery({ queryKey: RESOURCES_KEY, queryFn: () => call<Resource[]>('GET', '/cluster/resources'), refetchInterval: REFRESH_MS });
}

export function isGuest(resource: Resource): boolean {
  return resource.type === 'qemu' || resource.type === 'lxc';
}

/** The names of the nodes that are online: where guests can be made, moved or cloned to. */
export function onlineNodes(resources: readonly Resource[]): string[] {
  return resources.filter((r) => r.type === 'node' && r.status === 'online').map((r) => r.node ?? '');
}
