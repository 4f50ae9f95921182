import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MetricServerSettings, MetricServerType } from './metric-server-settings.js';

/**
 * An external metric server (PVE's entries of status.cfg; docs/monitoring.md): where each replica
 * sends its nodes', guests' and storages' figures every 10 s. The InfluxDB token is kept as given,
 * not hashed, because it is sent with every write; only the sender reads it, and the API never
 * shows it (PVE keeps it in the root-only priv/metricserver/<id>.pw).
 */
@Entity({ name: 'metric_servers' })
export class MetricServerRow {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  type!: MetricServerType;

  @Column('boolean', { default: false })
  disable!: boolean;

  /** The settings of its type, under PVE's names, as validated. */
  @Column('jsonb')
  settings!: MetricServerSettings;

  @Column('text', { nullable: true })
  token!: string | null;

  /** Why the newest send of any replica failed; null after a send that worked. */
  @Column('text', { nullable: true })
  error!: string | null;

  /** Since when it has been failing. */
  @Column('timestamptz', { name: 'failing_since', nullable: true })
  failingSince!: Date | null;
}
