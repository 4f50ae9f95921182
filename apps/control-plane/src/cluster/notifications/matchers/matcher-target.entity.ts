import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { WebhookRow } from '../webhooks/webhook.entity.js';
import { MatcherRow } from './matcher.entity.js';

/**
 * A target a matcher notifies. The foreign key on the webhook makes "unknown target" and "target
 * still in use" the database's answers, with no window between a check and a write.
 */
@Entity({ name: 'notification_matcher_targets' })
@Index(['target'])
export class MatcherTargetRow {
  @PrimaryColumn('text')
  matcher!: string;

  @PrimaryColumn('text')
  target!: string;

  @ManyToOne(() => MatcherRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'matcher' })
  owner?: MatcherRow;

  @ManyToOne(() => WebhookRow, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'target' })
  webhook?: WebhookRow;
}
