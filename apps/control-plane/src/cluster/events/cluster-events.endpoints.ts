import { z } from 'zod';
import { EventEntry } from '../../events/event-entry.js';
import { ALL_EVENT_KINDS } from '@corral/pve-formats/cluster-event-kinds';
import { VMID_PARAM } from '../../guests/guest.endpoints.js';
import { endpoint } from '../../http/endpoint.js';
import { commaListParam, integerParam } from '../../http/params.js';
import { nodeParam } from '../../nodes/node-params.js';

/** The most events one JSON answer carries. */
export const MAX_LIMIT = 1000;

export const CLUSTER_EVENTS_ENDPOINTS = {
  events: endpoint({
    method: 'GET',
    path: '/cluster/events',
    summary: 'The events of the cluster: a live stream (websocket, or server-sent events) resuming after a seq, or a page of them as JSON',
    description: [
      'Three ways (docs/events.md): upgraded to a websocket, each event is one text message (a JSON object); with `Accept: text/event-stream`, server-sent events (`id:` the seq, `event:` the kind, `data:` the JSON object), resuming after `Last-Event-ID`;',
      'otherwise a JSON page of the events after `since` (without it, the newest ones), at most `limit`. A stream without `since` starts with the next event.',
      'Resuming after `since` misses nothing and repeats nothing. A `since` past the newest event is a 400; one older than the retained events (events after it were deleted) a 410 naming the oldest available seq.',
      'The caller sees the events it may audit: VM.Audit on `/vms/<vmid>` for guest events, Sys.Audit on `/nodes/<node>` for node events.',
    ].join(' '),
    parameters: z.object({
      'event-type': commaListParam(
        z.enum(ALL_EVENT_KINDS, { error: (issue) => `unknown event kind '${String(issue.input)}': one of ${ALL_EVENT_KINDS.join(', ')}` }),
        'Only these kinds, comma-separated (`vm-start,vm-stop`).',
      ).optional(),
      node: nodeParam('Only the events of this node.').optional(),
      vmid: VMID_PARAM.optional().meta({ description: 'Only the events of this guest.' }),
      since: integerParam({ description: 'Resume after this seq: the events that committed after it, in order.', min: 0 }).optional(),
      limit: integerParam({ description: `JSON only: at most this many events (default 100).`, min: 1, max: MAX_LIMIT }).optional(),
    }),
    returns: z.array(EventEntry),
    permission: { kind: 'authenticated' },
  }),
};
