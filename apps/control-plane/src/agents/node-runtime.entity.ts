import type { GuestRuntime } from '@corral/protocol';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The newest runtime report of each node's agent, as the replica holding it published it, for the
 * other replicas to show the same live figures (shared-runtime.ts). An unlogged table: it is
 * rewritten every few seconds and worth nothing after a crash of the database.
 */
@Entity({ name: 'node_runtime' })
export class NodeRuntimeRow {
  @PrimaryColumn('text')
  node!: string;

  /** The replica that published it: the one holding the node's agent then. */
  @Column('text')
  replica!: string;

  /** The report's guests, as the agent sent them. */
  @Column('jsonb')
  guests!: GuestRuntime[];

  /** When it was published (the database's clock). */
  @Column('timestamptz')
  at!: Date;
}
