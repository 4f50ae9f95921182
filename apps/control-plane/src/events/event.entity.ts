import { Column, Entity, Generated, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { EventKind } from '@corral/pve-formats/cluster-event-kinds';

/**
 * One event of the outbox: written in the transaction of the change it
 * reports; `seq` orders all events of the cluster, and is committed in that order.
 */
@Entity({ name: 'events' })
// An agent's event by `(node, details.session, details.seq)`: an expression index, which TypeORM cannot describe (migration AgentEventIdentity).
@Index('IDX_events_agent_frame', { synchronize: false })
export class EventRow {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  /** pg returns a bigint as text. */
  seq!: string;

  /** The event's identity for receivers that drop duplicates; `seq` is its place in the order. The database's `gen_random_uuid()` fills it in. */
  @Column('uuid', { unique: true })
  @Generated('uuid')
  id!: string;

  @Column('text')
  event!: EventKind;

  @Column('text')
  node!: string;

  /** The guest, for guest events. */
  @Column('integer', { nullable: true })
  vmid!: number | null;

  /** Retention deletes by it (events/event-retention.ts). */
  @Index()
  @Column('timestamptz')
  timestamp!: Date;

  /** What else is known (the agent's session for a node event, ...): fields beyond `event`, `node`, `vmid` and `timestamp`. */
  @Column('jsonb', { default: () => "'{}'" })
  details!: Record<string, unknown>;
}
