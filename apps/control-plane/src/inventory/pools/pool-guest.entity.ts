import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { GuestRow } from '../guests/guest.entity.js';
import { PoolRow } from './pool.entity.js';

/**
 * A guest's membership of a pool. The vmid is the key, so a guest is in at most one pool, as in
 * PVE; the membership goes with the guest (cascade), while a pool with members cannot be deleted.
 * A trigger (migration 1764000000000) tells every replica's access snapshot of each change.
 */
@Entity({ name: 'pool_guests' })
@Index(['poolid'])
export class PoolGuestRow {
  @PrimaryColumn('integer')
  vmid!: number;

  @Column('text')
  poolid!: string;

  @ManyToOne(() => GuestRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'vmid' })
  guest?: GuestRow;

  @ManyToOne(() => PoolRow)
  @JoinColumn({ name: 'poolid' })
  pool?: PoolRow;
}
