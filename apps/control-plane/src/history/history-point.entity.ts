import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../database/bigint-number.js';

/**
 * One point of a series' history at one resolution: each field's average and maximum over the
 * slot. Bounded: every level keeps a fixed number of points per series (history-levels.ts).
 */
@Entity({ name: 'history_points' })
@Index('IDX_history_points_step_slot', ['step', 'slot'])
export class HistoryPointRow {
  /** `node/<node>`, `vm/<vmid>` or `storage/<node>/<storage>`. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_history_points' })
  series!: string;

  /** Seconds per point: the level. */
  @PrimaryColumn('integer', { primaryKeyConstraintName: 'PK_history_points' })
  step!: number;

  /** The start of the point's interval, in epoch seconds. */
  @PrimaryColumn('bigint', { primaryKeyConstraintName: 'PK_history_points', transformer: BIGINT_NUMBER })
  slot!: number;

  @Column('jsonb')
  avg!: Record<string, number>;

  @Column('jsonb')
  max!: Record<string, number>;
}
