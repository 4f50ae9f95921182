import { useQuery } from '@tanstack/react-query';
import { call } from './client';
import type { Resource } from './resources';

interface HaResource {
  readonly sid: string;
  readonly state?: string;
}

export const HA_RESOURCES_KEY = ['cluster', 'ha', 'resources'] as const;

/** PVE's name of a guest under HA: `vm:<vmid>` or `ct:<vmid>`. */
export function haSid(guest: Resource): string {
  return `${guest.type === 'qemu' ? 'vm' : 'ct'}:${guest.vmid}`;
}

/** The guest's requested HA state (`GET /cluster/ha/resources`): null when HA does not manage it, undefined until read. */
export function useHaState(guest: Resource): string | null | undefined {
  const resources = useQuery({ queryKey: HA_RESOURCES_KEY, queryFn: () => call<HaResource[]>('GET', '/cluster/ha/resources') });
  if (!resources.data) return undefined;
  const entry = resources.data.find((resource) => resource.sid === haSid(guest));
  return entry ? (entry.state ?? 'started') : null;
}
