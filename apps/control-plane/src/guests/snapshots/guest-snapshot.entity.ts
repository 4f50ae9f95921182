import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { GuestRow } from '../../inventory/guests/guest.entity.js';

/**
 * A snapshot of a guest, as a `[snapname]` section of PVE's guest config: the config the guest had
 * when it was taken, its parent in the snapshot tree and its description. The data is on the
 * guest's node (its driver's snapshots); the row goes with its guest.
 */
@Entity({ name: 'guest_snapshots' })
export class GuestSnapshotRow {
  @PrimaryColumn('integer')
  vmid!: number;

  @PrimaryColumn('text')
  name!: string;

  /** The snapshot that was the guest's current one when this was taken (PVE's `parent`); null for a root of the tree. */
  @Column('text', { nullable: true })
  parent!: string | null;

  @Column('text', { default: '' })
  description!: string;

  /** PVE's `snaptime`: when it was taken. */
  @Column('timestamptz')
  snaptime!: Date;

  /** Whether a VM's memory and device state were saved with it (PVE's `vmstate`). */
  @Column('boolean', { default: false })
  vmstate!: boolean;

  /** The guest's config keys and values when it was taken (without `parent`). */
  @Column('jsonb')
  config!: Record<string, string>;

  @ManyToOne(() => GuestRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'vmid' })
  guest?: GuestRow;
}
