import { useQuery } from '@tanstack/react-query';
import { call } from './client';

interface NodeStorage {
  readonly storage: string;
  readonly type: string;
  readonly avail?: number;
  readonly content?: string;
}

interface Volume {
  readonly volid: string;
  readonly size?: number;
}

interface Interface {
  readonly iface: string;
}

const nodePath = (node: string) => `/nodes/${encodeURIComponent(node)}`;

/** A node's enabled storages that hold `content` (`images`, `iso`, ...). */
export function useNodeStorages(node: string, content: string) {
  return useQuery({
    queryKey: ['node', node, 'storages', content],
    queryFn: () => call<NodeStorage[]>('GET', `${nodePath(node)}/storage`, { content, enabled: 1 }),
    enabled: node !== '',
  });
}

/** The volumes of one content kind (`iso` images, `vztmpl` container templates) on every storage of a node that holds them. */
export function useContentVolumes(node: string, content: 'iso' | 'vztmpl') {
  const storages = useNodeStorages(node, content);
  return useQuery({
    queryKey: ['node', node, content, storages.data?.map((s) => s.storage)],
    queryFn: async () => {
      const lists = await Promise.all(
        (storages.data ?? []).map((s) =>
          call<Volume[]>('GET', `${nodePath(node)}/storage/${encodeURIComponent(s.storage)}/content`, { content }),
        ),
      );
      return lists.flat();
    },
    enabled: storages.isSuccess,
  });
}

/** A node's bridges, which a guest's network card can join. */
export function useBridges(node: string) {
  return useQuery({
    queryKey: ['node', node, 'bridges'],
    queryFn: () => call<Interface[]>('GET', `${nodePath(node)}/network`, { type: 'any_bridge' }),
    enabled: node !== '',
  });
}
