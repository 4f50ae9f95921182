import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The spec 6 event kinds. */
export const EVENT_KINDS = ['vm-start', 'vm-stop', 'vm-create', 'vm-delete', 'ct-start', 'ct-stop', 'backup-start', 'backup-end', 'node-down', 'cluster-join'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * One event of the outbox (DESIGN.md "Events"): written in the transaction of the change it
 * reports; `seq` orders all events of the cluster, and is committed in that order.
 */
@Entity({ name: 'events' })
export class EventRow {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  /** pg returns a bigint as text. */
  seq!: string;

  @Column('text')
  event!: EventKind;

  @Column('text')
  node!: string;

  /** The guest, for guest events. */
  @Column('integer', { nullable: true })
  vmid!: number | null;

  @Column('timestamptz')
  timestamp!: Date;

  /** What else is known (the agent's session for a node event, ...): fields beyond spec 6's four. */
  @Column('jsonb', { default: () => "'{}'" })
  details!: Record<string, unknown>;
}
