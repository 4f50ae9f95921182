import { Injectable } from '@nestjs/common';
import { DataSource, In, MoreThan } from 'typeorm';
import { EventRow } from '../../../events/event.entity.js';
import { PoolGuestRow } from '../../../inventory/pools/pool-guest.entity.js';
import { MatchersRepository, type Matcher } from '../matchers/matchers.repository.js';
import { WebhookSecretRow } from '../webhooks/webhook-secret.entity.js';
import { WebhookRow, type WebhookHeader } from '../webhooks/webhook.entity.js';
import { DeliveryRow, type DeliveryState } from './delivery.entity.js';
import { DispatchCursorRow } from './dispatch-cursor.entity.js';
import type { Outcome } from './webhook-request.js';

/** Carries nothing: that deliveries were made, to wake every replica's workers. */
export const DELIVERIES_CHANNEL = 'corral_webhook_deliveries';

/** What the dispatcher knows when it routes a batch of events, all read in its transaction. */
export interface DispatchBatch {
  /** In `seq` order, each with the pool its guest is in now. */
  readonly events: readonly (EventRow & { readonly pool: string | null })[];
  readonly matchers: readonly Matcher[];
  /** The webhooks that exist and are enabled. */
  readonly webhooks: ReadonlySet<string>;
}

export type NewDelivery = Pick<DeliveryRow, 'webhook' | 'orderingKey' | 'eventSeq' | 'eventId' | 'event' | 'node' | 'vmid' | 'body'>;

/** A delivery a worker has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly webhook: string;
  readonly eventSeq: number;
  readonly eventId: string;
  readonly body: string;
  readonly attempts: number;
  readonly url: string;
  readonly headers: readonly WebhookHeader[];
  readonly allowLocal: boolean;
  readonly timeoutS: number;
}

/** The oldest pending delivery of one (webhook, ordering key), not claimed now: the only one of its queue that may be sent. */
export interface QueueHead {
  readonly id: string;
  readonly webhook: string;
  /** 0 when due. */
  readonly dueInMs: number;
}

/** The deliveries, the dispatcher's cursor, and the one place secret values are read. */
@Injectable()
export class DeliveriesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly matchers: MatchersRepository,
  ) {}

  /**
   * Dispatches the next `limit` events after the cursor: `plan` turns them into deliveries, which
   * are written with the cursor's new place in one transaction. Resolves with the number of events
   * read (fewer than `limit`: the dispatcher is up to date).
   *
   * Exactly once across replicas: each holds the cursor row's lock from reading it until the
   * deliveries and the new cursor commit, so a second dispatcher waits and then reads after the
   * new cursor. No event is skipped, because events commit in `seq` order (record-event.ts).
   */
  dispatch(limit: number, plan: (batch: DispatchBatch) => NewDelivery[]): Promise<number> {
    return this.dataSource.transaction(async (db) => {
      const cursor = await db.findOneOrFail(DispatchCursorRow, { where: { id: 1 }, lock: { mode: 'pessimistic_write' } });
      const events = await db.find(EventRow, { where: { seq: MoreThan(String(cursor.seq)) }, order: { seq: 'ASC' }, take: limit });
      const last = events.at(-1);
      if (last === undefined) return 0;
      const vmids = [...new Set(events.flatMap((event) => (event.vmid === null ? [] : [event.vmid])))];
      const pools = new Map((await db.find(PoolGuestRow, { where: { vmid: In(vmids) } })).map((member) => [member.vmid, member.poolid]));
      const webhooks = new Set(
        (await db.find(WebhookRow, { select: { name: true }, where: { disable: false } })).map((webhook) => webhook.name),
      );
      const deliveries = plan({
        events: events.map((event) => ({ ...event, pool: event.vmid === null ? null : (pools.get(event.vmid) ?? null) })),
        matchers: await this.matchers.all(db),
        webhooks,
      });
      for (let start = 0; start < deliveries.length; start += 1000) await db.insert(DeliveryRow, deliveries.slice(start, start + 1000));
      await db.update(DispatchCursorRow, { id: 1 }, { seq: Number(last.seq) });
      if (deliveries.length > 0) await db.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
      return events.length;
    });
  }

  /** Up to `limit` queue heads of enabled webhooks, soonest due first. */
  async heads(limit: number): Promise<QueueHead[]> {
    const rows = (await this.dataSource.query(
      `WITH "heads" AS (
         SELECT DISTINCT ON ("webhook", "ordering_key") "id", "webhook", "next_attempt", "lease_until"
         FROM "notification_deliveries" WHERE "state" = 'pending' ORDER BY "webhook", "ordering_key", "id")
       SELECT "h"."id", "h"."webhook", GREATEST(0, CEIL(EXTRACT(EPOCH FROM "h"."next_attempt" - now()) * 1000)) AS "due_in_ms"
       FROM "heads" "h" JOIN "notification_webhooks" "w" ON "w"."name" = "h"."webhook"
       WHERE NOT "w"."disable" AND ("h"."lease_until" IS NULL OR "h"."lease_until" < now())
       ORDER BY "h"."next_attempt" LIMIT $1`,
      [limit],
    )) as { id: string; webhook: string; due_in_ms: string }[];
    return rows.map((row) => ({ id: row.id, webhook: row.webhook, dueInMs: Number(row.due_in_ms) }));
  }

  /**
   * Claims the deliveries that are still due, unclaimed queue heads, until their webhook's timeout
   * plus `graceMs` from now on the database's clock, under `token`.
   *
   * One sender per (webhook, key) across replicas: only a queue's head is ever claimed, the
   * claim is one UPDATE whose conditions PostgreSQL checks again on a row another transaction
   * changed meanwhile, so of two replicas claiming a head one gets it; and the head stays claimed
   * until its attempt is recorded, so nothing behind it is sent. A claim rather than a row lock
   * held through the request: a lock would hold a database connection for as long as a receiver
   * takes to answer. A claim outlives its request (the request's timeout is shorter), so it ends
   * early only when a replica dies; then another sends the delivery again (at least once).
   */
  async claim(ids: readonly string[], token: string, graceMs: number): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const [rows] = (await this.dataSource.query(
      `UPDATE "notification_deliveries" "d"
       SET "lease_until" = now() + ("w"."timeout" * 1000 + $3::float8) * interval '1 millisecond', "lease_token" = $2
       FROM "notification_webhooks" "w"
       WHERE "w"."name" = "d"."webhook" AND "d"."id" = ANY($1) AND "d"."state" = 'pending' AND "d"."next_attempt" <= now()
         AND ("d"."lease_until" IS NULL OR "d"."lease_until" < now()) AND NOT "w"."disable"
       RETURNING "d"."id", "d"."webhook", "d"."event_seq", "d"."event_id", "d"."body", "d"."attempts", "w"."url", "w"."headers", "w"."allow_local", "w"."timeout"`,
      [ids, token, graceMs],
    )) as [
      {
        id: string;
        webhook: string;
        event_seq: string;
        event_id: string;
        body: string;
        attempts: number;
        url: string;
        headers: WebhookHeader[];
        allow_local: boolean;
        timeout: number;
      }[],
      number,
    ];
    return rows.map((row) => ({
      id: row.id,
      webhook: row.webhook,
      eventSeq: Number(row.event_seq),
      eventId: row.event_id,
      body: row.body,
      attempts: row.attempts,
      url: row.url,
      headers: row.headers,
      allowLocal: row.allow_local,
      timeoutS: row.timeout,
    }));
  }

  /** The webhooks' secrets: webhook → name → bytes. */
  async secretsOf(webhooks: readonly string[]): Promise<Map<string, Map<string, Buffer>>> {
    const secrets = new Map<string, Map<string, Buffer>>();
    for (const row of await this.dataSource.manager.find(WebhookSecretRow, { where: { webhook: In([...webhooks]) } })) {
      secrets.set(row.webhook, (secrets.get(row.webhook) ?? new Map<string, Buffer>()).set(row.name, Buffer.from(row.value, 'base64')));
    }
    return secrets;
  }

  /**
   * Records an attempt of a delivery claimed under `token` and ends the claim (nothing, when the
   * claim was lost meanwhile). A retry waits `retryMs`, but not past the end of the retry window,
   * `windowMs` after the delivery was made; an attempt that fails after the window ends marks it
   * failed, so every delivery gets at least one attempt. Resolves with the delivery's state now
   * (null: the claim was lost).
   */
  async record(id: string, token: string, outcome: Outcome, retryMs: number, windowMs: number): Promise<DeliveryState | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE "notification_deliveries"
       SET "state" = CASE $7::text WHEN 'delivered' THEN 'delivered' WHEN 'refused' THEN 'failed'
           ELSE CASE WHEN now() >= "created" + $6::float8 * interval '1 millisecond' THEN 'failed' ELSE 'pending' END END,
         "attempts" = "attempts" + 1, "last_attempt" = now(), "last_status" = $3, "last_error" = $4,
         "next_attempt" = LEAST(now() + $5::float8 * interval '1 millisecond', "created" + $6::float8 * interval '1 millisecond'), "lease_until" = NULL, "lease_token" = NULL
       WHERE "id" = $1 AND "lease_token" = $2
       RETURNING "state"`,
      [
        id,
        token,
        outcome.kind === 'refused' ? null : outcome.status,
        outcome.kind === 'delivered' ? null : outcome.error,
        retryMs,
        windowMs,
        outcome.kind,
      ],
    )) as [{ state: DeliveryState }[], number];
    return rows[0]?.state ?? null;
  }

  /** The webhook's latest deliveries, newest first. */
  recent(webhook: string, limit: number, state: DeliveryState | undefined): Promise<DeliveryRow[]> {
    return this.dataSource.manager.find(DeliveryRow, {
      where: { webhook, ...(state !== undefined ? { state } : {}) },
      order: { id: 'DESC' },
      take: limit,
    });
  }

  /** Deletes delivered and failed deliveries whose last attempt is older than `ageMs`. */
  async forget(ageMs: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM "notification_deliveries" WHERE "state" <> 'pending' AND "last_attempt" < now() - $1::float8 * interval '1 millisecond'`,
      [ageMs],
    );
  }
}
