import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An extra header a webhook sends; `value` may hold `{{ secrets.<name> }}`, filled in when it is sent. */
export interface WebhookHeader {
  readonly name: string;
  readonly value: string;
}

/**
 * A webhook target (PVE's `webhook` notification endpoint; docs/webhooks.md). Its
 * secrets live apart (WebhookSecretRow), so that nothing that reads a webhook reads them.
 */
@Entity({ name: 'notification_webhooks' })
export class WebhookRow {
  @PrimaryColumn('text')
  name!: string;

  /** http(s), without credentials. */
  @Column('text')
  url!: string;

  @Column('jsonb', { default: () => "'[]'" })
  headers!: WebhookHeader[];

  @Column('text', { nullable: true })
  comment!: string | null;

  @Column('boolean', { default: false })
  disable!: boolean;

  /** Corral's: may reach loopback, link-local and cloud metadata addresses (delivery/address-policy.ts). */
  @Column('boolean', { name: 'allow_local', default: false })
  allowLocal!: boolean;

  /** Corral's: seconds a request may take, answer included. */
  @Column('integer', { default: 10 })
  timeout!: number;
}
