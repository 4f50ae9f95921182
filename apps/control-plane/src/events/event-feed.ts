import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DatabaseNotifications } from '../database/notifications.js';
import { LOGGER } from '../logging/loggers.js';
import { cursorExpired } from './event-cursor.js';
import type { EventEntry } from './event-entry.js';
import { matches, type EventFilter } from './event-filter.js';
import { EVENTS_CHANNEL } from './record-event.js';
import { EventsRepository, type EventPage } from './events.repository.js';

/** The newest events kept in memory: readers this close to the head cost no query. */
const RING_SIZE = 4096;
const FETCH_SIZE = 1000;
const RETRY_MS = 1000;

/**
 * The replica's live tail of the event table, shared by all its streams: on each NOTIFY of
 * EVENTS_CHANNEL (and after a lost listener, when notifications may have been missed) it reads the
 * events after the newest it has, in seq order. Writers commit in seq order (record-event.ts), so
 * that read never skips one that commits later; the ring therefore holds every event between
 * `floor` and `head`, and a reader behind the ring reads the table instead. Streams pull from here
 * at their own pace: nothing is buffered per connection.
 */
@Injectable()
export class EventFeed {
  private ring: EventEntry[] = [];
  /** The ring holds every event with a seq in (floor, head]; head is null until the first read. */
  private floor = 0;
  private head: number | null = null;
  private fetching = false;
  private again = false;
  private readonly waiters = new Set<{ readonly after: number; readonly wake: () => void }>();

  constructor(
    notifications: DatabaseNotifications,
    private readonly repository: EventsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    notifications.subscribe(EVENTS_CHANNEL, () => this.refresh());
  }

  /**
   * The events after `after` that match, at most `limit`, and how far they were looked for (see
   * EventPage); from memory when the ring reaches back that far. A 410 when retention deleted
   * events after `after`.
   */
  async read(after: number, filter: EventFilter, limit: number): Promise<Pick<EventPage, 'events' | 'through'>> {
    if (this.head === null || after < this.floor) {
      const page = await this.repository.page(after, filter, limit);
      if (after < page.bounds.prunedThrough) throw cursorExpired(after, page.bounds);
      return page;
    }
    const events: EventEntry[] = [];
    for (let i = firstAfter(this.ring, after); i < this.ring.length; i++) {
      const entry = this.ring[i] as EventEntry;
      if (!matches(filter, entry)) continue;
      events.push(entry);
      if (events.length === limit) return { events, through: entry.seq };
    }
    return { events, through: Math.max(after, this.head) };
  }

  /** Resolves once an event after `after` has committed (at once if one has), or when `signal` aborts. */
  waitBeyond(after: number, signal: AbortSignal): Promise<void> {
    if ((this.head !== null && this.head > after) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        after,
        wake: () => {
          this.waiters.delete(waiter);
          signal.removeEventListener('abort', waiter.wake);
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', waiter.wake, { once: true });
    });
  }

  private refresh(): void {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    void this.catchUp().finally(() => {
      this.fetching = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  private async catchUp(): Promise<void> {
    try {
      if (this.head === null) {
        // Readers start from the table; the ring only follows what commits from now on.
        this.head = this.floor = (await this.repository.bounds()).newest;
      }
      for (;;) {
        const page = await this.repository.page(this.head, {}, FETCH_SIZE);
        this.append(page.events, page.through);
        if (page.events.length < FETCH_SIZE) break;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot read new events; retrying');
      setTimeout(() => this.refresh(), RETRY_MS).unref();
    }
    for (const waiter of this.waiters) if (this.head !== null && this.head > waiter.after) waiter.wake();
  }

  private append(events: readonly EventEntry[], through: number): void {
    this.ring.push(...events);
    const excess = this.ring.length - RING_SIZE;
    if (excess > 0) this.floor = (this.ring.splice(0, excess).at(-1) as EventEntry).seq;
    this.head = through;
  }
}

/** The index of the first event after `seq` in the ring (ordered by seq). */
function firstAfter(ring: readonly EventEntry[], seq: number): number {
  let low = 0;
  let high = ring.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((ring[middle] as EventEntry).seq <= seq) low = middle + 1;
    else high = middle;
  }
  return low;
}
