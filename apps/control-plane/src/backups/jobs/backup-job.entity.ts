import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { VzdumpParams } from '../vzdump-params.js';

/**
 * A scheduled backup job (PVE's `vzdump` entries of jobs.cfg; docs/backups.md).
 * What a run backs up is kept as the vzdump parameters given, so that the job and
 * `POST /nodes/{node}/vzdump` share one schema; `node`, `pool` and `storage` are names, not foreign
 * keys: as in PVE, removing a node, pool or storage leaves the job, whose runs then fail and say why.
 */
@Entity({ name: 'backup_jobs' })
export class BackupJobRow {
  @PrimaryColumn('text')
  id!: string;

  /** PVE's calendar event, as given. */
  @Column('text')
  schedule!: string;

  @Column('boolean', { default: true })
  enabled!: boolean;

  /** Null: the guests of every node; else only that node's. */
  @Column('text', { nullable: true })
  node!: string | null;

  @Column('text', { nullable: true })
  comment!: string | null;

  /** Run a slot missed while no scheduler ran, once (Corral's default; PVE's is off). */
  @Column('boolean', { name: 'repeat_missed', default: true })
  repeatMissed!: boolean;

  /** The vzdump parameters of a run (VZDUMP_PARAMS), as validated. */
  @Column('jsonb')
  params!: VzdumpParams;

  /**
   * Slots count after this instant: the job's creation, or the last change of its schedule or
   * `enabled` (PVE's `updated`). The slots it ran are kept per node (BackupJobRunRow).
   */
  @Column('timestamptz', { name: 'due_after' })
  dueAfter!: Date;
}
