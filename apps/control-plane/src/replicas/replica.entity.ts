import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A control-plane replica that is up: it writes `seen` every few seconds while it runs, and removes its row when it stops. */
@Entity({ name: 'replicas' })
export class ReplicaRow {
  /** A random id per process. */
  @PrimaryColumn('text')
  id!: string;

  /** The database's clock at its last heartbeat. */
  @Column('timestamptz')
  seen!: Date;

  /** Where the other replicas reach it (`CORRAL_REPLICA_URL`); null for a replica from before it was recorded. */
  @Column('text', { nullable: true })
  address!: string | null;
}
