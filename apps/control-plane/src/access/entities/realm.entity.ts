import { Column, Entity, PrimaryColumn } from 'typeorm';

export type RealmType = 'pam' | 'pve' | 'oidc';

/** An authentication domain (PVE's `/access/domains`): `pam` and `pve` are local user databases, `oidc` trusts a bearer token issuer. */
@Entity({ name: 'realms' })
export class RealmRow {
  @PrimaryColumn('text')
  realm!: string;

  @Column('text')
  type!: RealmType;

  @Column('text', { default: '' })
  comment!: string;

  /** The realm PVE's login box preselects; at most one realm has it. */
  @Column('boolean', { name: 'is_default', default: false })
  isDefault!: boolean;

  /** Bearer-token realms only: create a user the first time a valid token names one. */
  @Column('boolean', { default: false })
  autocreate!: boolean;
}
