import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { GuestRow } from '../../inventory/guests/guest.entity.js';

/**
 * The cloud-init keys a VM's drive was last generated from (PVE's `[special:cloudinit]` section):
 * what `GET .../cloudinit` shows as each key's `value`, the config's own being `pending` when it
 * differs. The row goes with its VM.
 */
@Entity({ name: 'guest_cloudinit' })
export class GuestCloudinitRow {
  @PrimaryColumn('integer')
  vmid!: number;

  /** The cloud-init keys and values (the password as its hash) when the drive was generated. */
  @Column('jsonb')
  active!: Record<string, string>;

  @OneToOne(() => GuestRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'vmid' })
  guest?: GuestRow;
}
