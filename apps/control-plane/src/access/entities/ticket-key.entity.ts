import { CreateDateColumn, Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A ticket signing key. Kept in the database so that every replica signs and verifies alike; a new one every 24 h. */
@Entity({ name: 'ticket_keys' })
export class TicketKeyRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('bytea')
  secret!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
