import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { PoolClient } from 'pg';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import { LOGGER } from '../../logging/loggers.js';
import { loadAccessSnapshot, type AccessSnapshot } from './access-snapshot.js';

const CHANNEL = 'corral_access';
const RELISTEN_MS = 1000;
// Any constant; the same for every replica.
const WRITE_LOCK = 0x61636365; // "acce"

/**
 * The access snapshot of this process, and the one way to change the access tables: `write()`
 * runs the change in a transaction that also notifies every replica (PostgreSQL NOTIFY is
 * delivered at commit), and the next request of each rebuilds its snapshot.
 */
@Injectable()
export class AccessState implements OnModuleInit, OnModuleDestroy {
  private snapshot: Promise<AccessSnapshot> | null = null;
  private listener: PoolClient | null = null;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  current(): Promise<AccessSnapshot> {
    if (this.snapshot && this.listener) return this.snapshot;
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

  async onModuleInit(): Promise<void> {
    await this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = null;
    // Destroyed, not returned to the pool: a pooled connection must not go on listening.
    listener?.release(true);
  }

  /** Changes other replicas commit reach this one through LISTEN; while it is down, nothing is cached. */
  private async listen(): Promise<void> {
    if (this.closed) return;
    try {
      const pool = (this.dataSource.driver as unknown as { master: { connect(): Promise<PoolClient> } }).master;
      const client = await pool.connect();
      client.on('notification', () => (this.snapshot = null));
      client.on('error', (error) => {
        // A connection this replica already let go of (closing, or replaced) has nothing to say.
        if (this.closed || this.listener !== client) return;
        this.logger.warn({ err: error }, 'access change listener lost its connection; reconnecting');
        this.listener = null;
        client.release(error);
        this.snapshot = null;
        setTimeout(() => void this.listen(), RELISTEN_MS).unref();
      });
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
      this.snapshot = null;
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot listen for access changes; retrying');
      setTimeout(() => void this.listen(), RELISTEN_MS).unref();
    }
  }
}
