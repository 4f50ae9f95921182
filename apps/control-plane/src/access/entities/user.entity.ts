import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../../database/bigint-number.js';
import { RealmRow } from './realm.entity.js';

/** A user `<name>@<realm>`, as PVE's user.cfg holds it. */
@Entity({ name: 'users' })
export class UserRow {
  @PrimaryColumn('text')
  userid!: string;

  @Column('text')
  realm!: string;

  @ManyToOne(() => RealmRow, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'realm' })
  realmRow?: RealmRow;

  @Column('boolean', { default: true })
  enable!: boolean;

  /** Epoch seconds after which the account no longer authenticates; 0 = never. */
  @Column('bigint', { default: 0, transformer: BIGINT_NUMBER })
  expire!: number;

  @Column('text', { nullable: true })
  firstname!: string | null;

  @Column('text', { nullable: true })
  lastname!: string | null;

  @Column('text', { nullable: true })
  email!: string | null;

  @Column('text', { nullable: true })
  comment!: string | null;

  @Column('text', { nullable: true })
  keys!: string | null;

  /** scrypt (PHC string, `access/auth/passwords.ts`); null for a user who cannot log in with a password (bearer-token realms). */
  @Column('text', { name: 'password_hash', nullable: true })
  passwordHash!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
