import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A notification matcher (PVE's): which events go to which targets. The rules are kept
 * as PVE's strings, checked when written (matcher-rules.ts); the targets are rows of their own
 * (MatcherTargetRow), so that a webhook a matcher names cannot be deleted.
 */
@Entity({ name: 'notification_matchers' })
export class MatcherRow {
  @PrimaryColumn('text')
  name!: string;

  /** `exact:<field>=<v1>,<v2>` or `regex:<field>=<re>`. */
  @Column('jsonb', { name: 'match_field', default: () => "'[]'" })
  matchField!: string[];

  /** Comma-separated severities, each item one rule. */
  @Column('jsonb', { name: 'match_severity', default: () => "'[]'" })
  matchSeverity!: string[];

  @Column('text', { default: 'all' })
  mode!: 'all' | 'any';

  @Column('boolean', { name: 'invert_match', default: false })
  invertMatch!: boolean;

  @Column('text', { nullable: true })
  comment!: string | null;

  @Column('boolean', { default: false })
  disable!: boolean;
}
