import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { WebhookRow } from './webhook.entity.js';

/**
 * A webhook's secret (PVE keeps them in the root-only priv/notifications.cfg). Kept as given, not
 * hashed: `signing` is the key of the request's HMAC and the others are sent in headers, so the
 * value must be usable (docs/webhooks.md). Only the sender reads `value`; the API shows names.
 */
@Entity({ name: 'notification_webhook_secrets' })
export class WebhookSecretRow {
  @PrimaryColumn('text')
  webhook!: string;

  @PrimaryColumn('text')
  name!: string;

  /** The secret's bytes, base64 as the API takes them. */
  @Column('text')
  value!: string;

  @ManyToOne(() => WebhookRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook' })
  owner?: WebhookRow;
}
