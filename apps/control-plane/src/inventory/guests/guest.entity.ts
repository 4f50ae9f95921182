import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { GuestType } from '@corral/protocol';

/** PVE's config locks: operations that own the guest while they run. */
export type GuestLock = 'create' | 'clone' | 'migrate' | 'backup' | 'snapshot' | 'snapshot-delete' | 'rollback';

/** A lock is written with the task that holds it, and cleared with it: no lock without an owner. */
export type GuestLocking = { readonly lock: null } | { readonly lock: GuestLock; readonly lockTask: string };

/**
 * A guest and its configuration (the control plane's truth, as PVE's
 * `/etc/pve/qemu-server/<vmid>.conf`). The primary key makes a vmid unique in the whole cluster,
 * whichever node and type: a duplicate create loses in the database, not in a check.
 */
@Entity({ name: 'guests' })
@Index(['node'])
// The guests a task's lock is held by: what the end of each task looks up.
@Index('IDX_guests_lock_task', ['lockTask'], { where: '"lock_task" IS NOT NULL' })
export class GuestRow {
  @PrimaryColumn('integer')
  vmid!: number;

  @Column('text')
  type!: GuestType;

  @Column('text')
  node!: string;

  /** PVE's config keys and values, as `GET .../config` shows them (without `digest`). */
  @Column('jsonb')
  config!: Record<string, string>;

  /** Set while an operation owns the guest (`create`, `clone`, `migrate`, `backup`, `snapshot`, `snapshot-delete`, `rollback`). */
  @Column('text', { nullable: true })
  lock!: GuestLock | null;

  /**
   * The UPID of the task that took the lock, set with it and cleared with it: once that task has
   * ended (or when it is missing), the lock is stale and is reconciled with the guest's agent.
   */
  @Column('text', { name: 'lock_task', nullable: true })
  lockTask!: string | null;

  /** The last run state its agent reported (the agent's truth, kept for reads while the node is away). */
  @Column('text', { default: 'stopped' })
  status!: 'running' | 'stopped' | 'paused';

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
