import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../database/bigint-number.js';

/** A task: one action on a node, named by its UPID, with its log in `task_logs`. */
@Entity({ name: 'tasks' })
@Index(['node', 'starttime'])
@Index(['starttime'])
// The running tasks, by replica: what the sweep of vanished replicas reads every few seconds.
@Index(['replica'], { where: '"endtime" IS NULL' })
export class TaskRow {
  @PrimaryColumn('text')
  upid!: string;

  @Column('text')
  node!: string;

  /** PVE's task type (`aptupdate`, `srvreload`, ...). */
  @Column('text')
  type!: string;

  /** What it acts on (a vmid, a service, a disk); '' for the node itself. */
  @Column('text')
  id!: string;

  /** The caller: a userid, or `<userid>!<tokenid>`. */
  @Column('text')
  user!: string;

  @Column('integer')
  pid!: number;

  @Column('bigint', { transformer: BIGINT_NUMBER })
  pstart!: number;

  /** Epoch seconds. */
  @Column('bigint', { transformer: BIGINT_NUMBER })
  starttime!: number;

  /** Epoch seconds; null while it runs. */
  @Column('bigint', { nullable: true, transformer: BIGINT_NUMBER })
  endtime!: number | null;

  /** `OK`, or the error text; null while it runs. */
  @Column('text', { nullable: true })
  exitstatus!: string | null;

  /** The control-plane replica running it (`replicas.id`): when that replica is gone, any other ends the task. */
  @Column('text')
  replica!: string;
}
