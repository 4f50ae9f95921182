import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A resource pool (PVE's `pool:` lines of user.cfg): a named set of guests and storages, so that
 * one ACL entry on `/pool/<poolid>` grants its roles on all of them (docs/pools.md). Pool ids are
 * flat: PVE 8's nested `a/b` pools are not supported.
 */
@Entity({ name: 'pools' })
export class PoolRow {
  @PrimaryColumn('text')
  poolid!: string;

  @Column('text', { nullable: true })
  comment!: string | null;
}
