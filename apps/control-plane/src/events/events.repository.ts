import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EventBounds } from './event-cursor.js';
import { eventEntry, type EventEntry, type EventRecord } from './event-entry.js';
import { filterSql, type EventFilter } from './event-filter.js';

/** A page of events, and how far it looked: every event up to `through` that matches is in it (or in an earlier page). */
export interface EventPage {
  readonly events: EventEntry[];
  readonly through: number;
  readonly bounds: EventBounds;
}

const COLUMNS = '"seq", "id", "event", "node", "vmid", "timestamp", "details"';
const BOUNDS = `SELECT COALESCE((SELECT max("seq") FROM "events"), 0) AS "newest", (SELECT min("seq") FROM "events") AS "oldest", COALESCE((SELECT "pruned_through" FROM "event_retention" WHERE "id" = 1), 0) AS "pruned"`;

type BoundsRecord = { newest: string; oldest: string | null; pruned: string };

/** Reads of the event table for streams and polls, and retention's deletes. */
@Injectable()
export class EventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async bounds(): Promise<EventBounds> {
    const [row] = (await this.dataSource.query(BOUNDS)) as [BoundsRecord];
    return boundsOf(row);
  }

  /**
   * The events after `after` that match, oldest first, at most `limit`, with the bounds the same
   * snapshot saw (one statement): writers commit in seq order, so nothing at or below the snapshot's
   * newest seq can commit later, and a page that is not full has looked through that newest seq.
   */
  async page(after: number, filter: EventFilter, limit: number): Promise<EventPage> {
    const { where, params } = filterSql(filter, 3);
    const rows = (await this.dataSource.query(
      `SELECT "b".*, "e".* FROM (${BOUNDS}) "b" LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM "events" WHERE "seq" > $1 AND ${where} ORDER BY "seq" LIMIT $2) "e" ON true ORDER BY "e"."seq"`,
      [after, limit, ...params],
    )) as (BoundsRecord & ({ seq: null } | EventRecord))[];
    const bounds = boundsOf(rows[0] as BoundsRecord);
    const events = rows.flatMap((row) => (row.seq === null ? [] : [eventEntry(row as EventRecord)]));
    const last = events.at(-1);
    return { events, through: events.length === limit && last ? last.seq : Math.max(after, bounds.newest), bounds };
  }

  /** The newest `limit` events that match, oldest first. */
  async newest(filter: EventFilter, limit: number): Promise<EventEntry[]> {
    const { where, params } = filterSql(filter, 2);
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM "events" WHERE ${where} ORDER BY "seq" DESC LIMIT $1`, [
      limit,
      ...params,
    ])) as EventRecord[];
    return rows.map(eventEntry).reverse();
  }

  /**
   * Deletes up to `batch` events that happened before `before`, and moves the retention mark past
   * them in the same statement. Idempotent: replicas sweeping together delete each event once.
   */
  async prune(before: Date, batch: number): Promise<number> {
    const [rows] = (await this.dataSource.query(
      `WITH "gone" AS (DELETE FROM "events" WHERE "seq" IN (SELECT "seq" FROM "events" WHERE "timestamp" < $1 LIMIT $2) RETURNING "seq")
       UPDATE "event_retention" SET "pruned_through" = GREATEST("pruned_through", (SELECT max("seq") FROM "gone")) WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "gone") RETURNING (SELECT count(*) FROM "gone")::integer AS "n"`,
      [before, batch],
    )) as [{ n: number }[], number];
    return rows[0]?.n ?? 0;
  }
}

function boundsOf(row: BoundsRecord): EventBounds {
  const prunedThrough = Number(row.pruned);
  return { newest: Math.max(Number(row.newest), prunedThrough), oldest: row.oldest === null ? null : Number(row.oldest), prunedThrough };
}
