import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../../../database/bigint-number.js';
import type { EventKind } from '@corral/pve-formats/cluster-event-kinds';
import { WebhookRow } from '../webhooks/webhook.entity.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/**
 * One event to send to one webhook (docs/webhooks.md "Delivery"): made by the dispatcher for each
 * matching webhook, sent by the workers oldest first per (webhook, ordering key). The body is
 * fixed when the row is made, so every attempt sends the same bytes and event retention cannot
 * take it away; the row goes with its webhook.
 */
@Entity({ name: 'notification_deliveries' })
// The queue: each (webhook, key)'s oldest pending row is the only one that may be sent.
@Index(['webhook', 'orderingKey', 'id'], { where: `"state" = 'pending'` })
@Index(['webhook', 'id'])
export class DeliveryRow {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  /** pg returns a bigint as text. */
  id!: string;

  @Column('text')
  webhook!: string;

  /** `vm:<vmid>` for guest events, `node:<node>` for node events: what stays in order. */
  @Column('text', { name: 'ordering_key' })
  orderingKey!: string;

  @Column('bigint', { name: 'event_seq', transformer: BIGINT_NUMBER })
  eventSeq!: number;

  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('text')
  event!: EventKind;

  @Column('text')
  node!: string;

  @Column('integer', { nullable: true })
  vmid!: number | null;

  /** The JSON body, exactly as sent. */
  @Column('text')
  body!: string;

  @Column('text', { default: 'pending' })
  state!: DeliveryState;

  @Column('integer', { default: 0 })
  attempts!: number;

  /** When the dispatcher made it: retries stop a retry window after this. */
  @Column('timestamptz', { default: () => 'now()' })
  created!: Date;

  @Column('timestamptz', { name: 'next_attempt', default: () => 'now()' })
  nextAttempt!: Date;

  @Column('timestamptz', { name: 'last_attempt', nullable: true })
  lastAttempt!: Date | null;

  /** The receiver's HTTP status of the last attempt; null when it gave none. */
  @Column('integer', { name: 'last_status', nullable: true })
  lastStatus!: number | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError!: string | null;

  /** While a worker sends it: until when its claim holds, and the claim's token. */
  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;

  @Column('uuid', { name: 'lease_token', nullable: true })
  leaseToken!: string | null;

  @ManyToOne(() => WebhookRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook' })
  target?: WebhookRow;
}
