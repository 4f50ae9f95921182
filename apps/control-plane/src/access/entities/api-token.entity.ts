import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../../database/bigint-number.js';
import { UserRow } from './user.entity.js';

/** An API token `<userid>!<tokenid>`; goes with its user. */
@Entity({ name: 'api_tokens' })
export class ApiTokenRow {
  @PrimaryColumn('text')
  userid!: string;

  @PrimaryColumn('text')
  tokenid!: string;

  @Column('boolean', { default: true })
  privsep!: boolean;

  /** Epoch seconds; 0 = never. */
  @Column('bigint', { default: 0, transformer: BIGINT_NUMBER })
  expire!: number;

  @Column('text', { nullable: true })
  comment!: string | null;

  /** SHA-256 (hex) of the secret: a random UUID carries 122 bits, so a slow hash adds nothing, and Corral's `<userid>=<secret>` form finds the token by it. */
  @Index({ unique: true })
  @Column('text', { name: 'secret_hash' })
  secretHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @ManyToOne(() => UserRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userid' })
  user?: UserRow;
}
