import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TaskRow } from './task.entity.js';

/** One line of a task's log; `n` counts from 1 (PVE's `/tasks/{upid}/log`). */
@Entity({ name: 'task_logs' })
export class TaskLogRow {
  @PrimaryColumn('text')
  upid!: string;

  @PrimaryColumn('integer')
  n!: number;

  @Column('text')
  t!: string;

  @ManyToOne(() => TaskRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'upid' })
  task?: TaskRow;
}
