import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A role granted on a path to a user, a group or an API token, as PVE stores it. The holder is a
 * (type, ugid) pair, so deleting a user, group, token or custom role deletes its entries in the
 * same transaction (the access repository does it).
 */
@Entity({ name: 'acl_entries' })
export class AclEntryRow {
  @PrimaryColumn('text')
  path!: string;

  @PrimaryColumn('text')
  type!: 'user' | 'group' | 'token';

  @PrimaryColumn('text')
  ugid!: string;

  @PrimaryColumn('text')
  roleid!: string;

  @Column('boolean', { default: true })
  propagate!: boolean;
}
