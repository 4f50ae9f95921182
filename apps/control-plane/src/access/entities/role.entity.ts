import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A custom role; PVE's built-in roles live in `@corral/acl` and are never stored. */
@Entity({ name: 'roles' })
export class RoleRow {
  @PrimaryColumn('text')
  roleid!: string;

  @Column('text', { array: true })
  privs!: string[];
}
