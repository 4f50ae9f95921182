import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A vmid `/cluster/nextid` handed out, kept from other nextid callers until `expires`
 * (unlike PVE, parallel callers get different ids). A create with an explicit id ignores it.
 */
@Entity({ name: 'vmid_reservations' })
export class VmidReservationRow {
  @PrimaryColumn('integer')
  vmid!: number;

  @Column('timestamptz')
  expires!: Date;
}
