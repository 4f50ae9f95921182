import { Column, Entity, Generated, Index, PrimaryGeneratedColumn } from 'typeorm';

/** The base event kinds; Corral's own are listed apart below. */
export const EVENT_KINDS = [
  'vm-start',
  'vm-stop',
  'vm-create',
  'vm-delete',
  'ct-start',
  'ct-stop',
  'backup-start',
  'backup-end',
  'node-down',
  'cluster-join',
] as const;

/**
 * Kinds Corral records beyond the base ones (listed apart, never changing those; docs/events.md):
 * `node-up`, a node back online after it was marked down; the HA manager's (docs/ha.md)
 * `ha-fence`, a node with HA guests lost and its lease awaited, `ha-recover`, a guest of a lost
 * node moved to another, and `ha-error`, a guest the HA manager gave up on.
 */
export const CORRAL_EVENT_KINDS = ['node-up', 'ha-fence', 'ha-recover', 'ha-error'] as const;

/** Every kind the event table holds: what readers, filters and matchers accept. */
export const ALL_EVENT_KINDS = [...EVENT_KINDS, ...CORRAL_EVENT_KINDS] as const;
export type EventKind = (typeof ALL_EVENT_KINDS)[number];

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
