import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The one HA manager (a single row, id 1): which control-plane replica holds the manager lock, and since when. */
@Entity({ name: 'ha_manager' })
export class HaManagerRow {
  @PrimaryColumn('smallint')
  id!: number;

  /** The replica (`<hostname>:<pid>`) holding the lock. */
  @Column('text')
  holder!: string;

  @Column('timestamptz')
  since!: Date;

  /** Written on every round of the manager: an old one means the holder is gone. */
  @Column('timestamptz', { name: 'last_round' })
  lastRound!: Date;
}
