import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MetricServerRow } from './metric-server.entity.js';

/** The metric_servers table. */
@Injectable()
export class MetricServersRepository {
  constructor(private readonly dataSource: DataSource) {}

  all(): Promise<MetricServerRow[]> {
    return this.dataSource.manager.find(MetricServerRow, { order: { id: 'ASC' } });
  }

  /** The servers to send to. */
  enabled(): Promise<MetricServerRow[]> {
    return this.dataSource.manager.find(MetricServerRow, { where: { disable: false }, order: { id: 'ASC' } });
  }

  find(id: string): Promise<MetricServerRow | null> {
    return this.dataSource.manager.findOneBy(MetricServerRow, { id });
  }

  /** One of that id already there is a unique violation. */
  async insert(row: MetricServerRow): Promise<void> {
    await this.dataSource.manager.insert(MetricServerRow, row);
  }

  /** Saves what `change` makes of the current row (null: there is none), the row locked meanwhile. */
  update(id: string, change: (current: MetricServerRow | null) => MetricServerRow): Promise<void> {
    return this.dataSource.transaction(async (db) => {
      const current = await db.findOne(MetricServerRow, { where: { id }, lock: { mode: 'pessimistic_write' } });
      await db.save(MetricServerRow, change(current));
    });
  }

  /** False when there was none. */
  async remove(id: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(MetricServerRow, { id });
    return (result.affected ?? 0) > 0;
  }

  /** Records the outcome of a send: why it failed (failing since the first such), or null once one worked. */
  async setError(id: string, error: string | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE metric_servers SET error = $2, failing_since = CASE WHEN $2::text IS NULL THEN NULL ELSE COALESCE(failing_since, now()) END WHERE id = $1`,
      [id, error],
    );
  }
}
