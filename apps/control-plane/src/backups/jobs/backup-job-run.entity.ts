import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BackupJobRow } from './backup-job.entity.js';

/**
 * The last slot of a backup job claimed for one node. Each node's part of a run is claimed on its
 * own, by the replica that holds the node's agent, as each PVE node runs its own part of a job
 * (backup-jobs.repository.ts `claim`); the row goes with its job.
 */
@Entity({ name: 'backup_job_runs' })
export class BackupJobRunRow {
  @PrimaryColumn('text', { name: 'job_id' })
  jobId!: string;

  @PrimaryColumn('text')
  node!: string;

  @Column('timestamptz', { name: 'last_slot' })
  lastSlot!: Date;

  @ManyToOne(() => BackupJobRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'job_id' })
  job?: BackupJobRow;
}
