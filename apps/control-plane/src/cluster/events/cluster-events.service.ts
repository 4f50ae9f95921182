import { childAuditor } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { badParam } from '../../errors/resource-errors.js';
import { checkCursor } from '../../events/event-cursor.js';
import type { EventEntry } from '../../events/event-entry.js';
import { EventFeed } from '../../events/event-feed.js';
import type { EventFilter } from '../../events/event-filter.js';
import { EventsRepository } from '../../events/events.repository.js';
import type { ParamsOf } from '../../http/endpoint.js';
import type { CLUSTER_EVENTS_ENDPOINTS } from './cluster-events.endpoints.js';

type Params = ParamsOf<(typeof CLUSTER_EVENTS_ENDPOINTS)['events']>;

const DEFAULT_LIMIT = 100;
/** Events read at a time, from the feed or the table. */
const PAGE_SIZE = 500;

/** What one stream follows: the caller's events that match `filter`, after `start`. */
export interface StreamRequest {
  readonly start: number;
  readonly filter: EventFilter;
  readonly caller: Principal;
}

/** `GET /cluster/events`: pages of events for polling clients, and the events a stream sends. */
@Injectable()
export class ClusterEventsService {
  constructor(
    private readonly feed: EventFeed,
    private readonly repository: EventsRepository,
    private readonly access: AccessState,
  ) {}

  /** The JSON answer: the visible events after `since`, at most `limit`; without `since`, the newest that match. Read from the table, so a caller sees its own changes' events at once. */
  async list(p: Params, caller: Principal): Promise<EventEntry[]> {
    const filter = filterOf(p);
    const limit = p.limit ?? DEFAULT_LIMIT;
    const visible = await this.visibility(caller);
    if (p.since === undefined) return (await this.repository.newest(filter, limit)).filter(visible);
    const found: EventEntry[] = [];
    for (let cursor = p.since; ;) {
      const page = await this.repository.page(cursor, filter, PAGE_SIZE);
      checkCursor(cursor, page.bounds, 'since');
      found.push(...page.events.filter(visible));
      if (found.length >= limit || page.events.length < PAGE_SIZE) return found.slice(0, limit);
      cursor = page.through;
    }
  }

  /**
   * A stream of the caller's events that match `p`, after `Last-Event-ID` (an SSE client
   * reconnecting), else after `since` (400 past the newest event, 410 when events after it were
   * deleted), else after the newest event: checked before the stream is accepted.
   */
  async open(p: Params, caller: Principal, lastEventId?: string): Promise<StreamRequest> {
    const resume = lastEventId === undefined || lastEventId === '' ? undefined : parseLastEventId(lastEventId);
    const [since, param] = resume === undefined ? [p.since, 'since'] : [resume, 'Last-Event-ID'];
    const bounds = await this.repository.bounds();
    if (since !== undefined) checkCursor(since, bounds, param);
    return { start: since ?? bounds.newest, filter: filterOf(p), caller };
  }

  /**
   * Sends the stream's events to `send` in seq order, each once, until `signal` aborts: from the
   * table while behind, then live from the feed. `send` resolving late holds the stream back;
   * what the caller may audit is asked again for each page, so a revoked grant stops its events.
   */
  async follow(stream: StreamRequest, send: (entry: EventEntry) => Promise<void>, signal: AbortSignal): Promise<void> {
    let cursor = stream.start;
    while (!signal.aborted) {
      const { events, through } = await this.feed.read(cursor, stream.filter, PAGE_SIZE);
      const visible = await this.visibility(stream.caller);
      for (const entry of events) {
        if (signal.aborted) return;
        if (visible(entry)) await send(entry);
      }
      if (through === cursor) await this.feed.waitBeyond(cursor, signal);
      cursor = through;
    }
  }

  /** Whether the caller may see an event: VM.Audit on its guest, or Sys.Audit on its node for a node event. */
  private async visibility(caller: Principal): Promise<(entry: EventEntry) => boolean> {
    const access = await this.access.current();
    const nodes = childAuditor(access, caller.subject, '/nodes', ['Sys.Audit']);
    const guests = childAuditor(access, caller.subject, '/vms', ['VM.Audit']);
    return (entry) => (entry.vmid === undefined ? nodes(entry.node) : guests(entry.vmid));
  }
}

function filterOf(p: Params): EventFilter {
  const kinds = p['event-type'];
  return {
    ...(kinds && kinds.length > 0 ? { kinds } : {}),
    ...(p.node === undefined ? {} : { node: p.node }),
    ...(p.vmid === undefined ? {} : { vmid: p.vmid }),
  };
}

function parseLastEventId(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw badParam('Last-Event-ID', `Last-Event-ID: expected the seq of an event, got '${text.slice(0, 40)}'`);
  return Number(text);
}
