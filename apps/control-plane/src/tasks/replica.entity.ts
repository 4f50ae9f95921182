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
}
