import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { DatabaseNotifications } from '../../database/notifications.js';
import { loadAccessSnapshot, type AccessSnapshot } from './access-snapshot.js';

const CHANNEL = 'corral_access';
// Any constant; the same for every replica.
const WRITE_LOCK = 0x61636365; // "acce"

/**
 * The access snapshot of this process, and the one way to change the access tables: `write()`
 * runs the change in a transaction that also notifies every replica (PostgreSQL NOTIFY is
 * delivered at commit), and the next request of each rebuilds its snapshot. Pool membership that
 * changes elsewhere (a guest created into a pool, a deleted guest or storage) notifies the same
 * channel by a trigger on its tables.
 */
@Injectable()
export class AccessState {
  private snapshot: Promise<AccessSnapshot> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifications: DatabaseNotifications,
  ) {
    // Changes other replicas commit arrive here; so does a lost listener, and while it is down nothing is cached.
    notifications.subscribe(CHANNEL, () => {
      this.snapshot = null;
    });
  }

  current(): Promise<AccessSnapshot> {
    if (this.snapshot && this.notifications.listening) return this.snapshot;
    const loading = loadAccessSnapshot(this.dataSource.manager);
    this.snapshot = loading;
    // A failed load is not kept: the next request tries again.
    loading.catch(() => {
      if (this.snapshot === loading) this.snapshot = null;
    });
    return loading;
  }

  async write<T>(change: (db: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(async (db) => {
        // One access change at a time, as PVE's user.cfg lock: a grant to a token cannot race its deletion.
        await db.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
        const result = await change(db);
        await db.query('SELECT pg_notify($1, $2)', [CHANNEL, '']);
        return result;
      });
    } finally {
      // Also after a failure: a rolled-back change leaves the tables as the snapshot knew them,
      // but rebuilding costs little and never serves a stale view.
      this.snapshot = null;
    }
  }
}
