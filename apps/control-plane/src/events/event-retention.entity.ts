import { Column, Entity, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../database/bigint-number.js';

/**
 * How far retention has deleted (one row): every event up to `prunedThrough` may be gone. A stream
 * cursor below it would miss events, so it is refused with 410; gaps that rolled-back writers left
 * in `seq` are no reason to refuse one.
 */
@Entity({ name: 'event_retention' })
export class EventRetentionRow {
  /** Always 1. */
  @PrimaryColumn('smallint')
  id!: number;

  @Column('bigint', { name: 'pruned_through', transformer: BIGINT_NUMBER, default: 0 })
  prunedThrough!: number;
}
