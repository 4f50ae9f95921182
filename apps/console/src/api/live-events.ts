import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ALL_EVENT_KINDS, type EventKind } from '@corral/pve-formats/cluster-event-kinds';
import { API } from './client';
import { RESOURCES_KEY } from './resources';

/** One event of `GET /cluster/events`. */
export interface ClusterEvent {
  readonly seq: number;
  readonly id: string;
  readonly event: EventKind;
  readonly node: string;
  readonly vmid?: number;
  readonly timestamp: string;
  readonly details?: Record<string, unknown>;
}

const KEPT = 50;
/** Events often come in bursts (a bulk start): the list is read again once per burst. */
const SETTLE_MS = 300;

/**
 * Follows `GET /cluster/events` as server-sent events (the browser's EventSource, which sends the
 * ticket cookie and reconnects with `Last-Event-ID`): each event refreshes the resource list and
 * the newest are kept for the dashboard. Each event's `event:` field is its kind, so the stream is
 * followed by listening to every kind.
 */
export function useLiveEvents(): { readonly events: readonly ClusterEvent[]; readonly connected: boolean } {
  const queryClient = useQueryClient();
  const [events, setEvents] = useState<readonly ClusterEvent[]>([]);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const source = new EventSource(`${API}/cluster/events`, { withCredentials: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    const onEvent = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as ClusterEvent;
      setEvents((kept) => [event, ...kept].slice(0, KEPT));
      clearTimeout(timer);
      timer = setTimeout(() => void queryClient.invalidateQueries({ queryKey: RESOURCES_KEY }), SETTLE_MS);
    };
    for (const kind of ALL_EVENT_KINDS) source.addEventListener(kind, onEvent);
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [queryClient]);
  return { events, connected };
}
