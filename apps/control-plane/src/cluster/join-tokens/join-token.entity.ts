import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../../database/bigint-number.js';

/** A single-use join token, until it is used, revoked or expires. Its secret is kept only as a hash. */
@Entity({ name: 'join_tokens' })
export class JoinTokenRow {
  /** Public, the token's first part: names it in lists and revocation. */
  @PrimaryColumn('text')
  id!: string;

  /** SHA-256 (hex) of the secret part, 256 random bits. */
  @Column('text', { name: 'secret_hash' })
  secretHash!: string;

  /** Epoch seconds. */
  @Column('bigint', { transformer: BIGINT_NUMBER })
  expire!: number;

  /** The only node name it joins, or any. */
  @Column('text', { nullable: true })
  node!: string | null;

  /** The admin's consent to take over an existing node of that name (with `node` only). */
  @Column('boolean', { default: false })
  replace!: boolean;

  @Column('text', { nullable: true })
  comment!: string | null;

  /** Who created it (a userid or a token id). */
  @Column('text', { name: 'created_by' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
