import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { databaseUnreachable } from '../errors/database-unreachable.js';
import { LOGGER } from '../logging/loggers.js';

const RELISTEN_MS = 1000;
/** The channel of this replica's barriers (`barrier`): each replica listens for its own. */
const BARRIER_CHANNEL = 'corral_barrier';
/** A barrier's notification that has not come back by then says the listening connection is broken without having noticed it. */
export const BARRIER_TIMEOUT_MS = 10_000;

/**
 * What a subscriber hears on its channel: a notification's payload, or `null` when notifications
 * may have been missed (the listening connection was lost, or is listening again), so the
 * subscriber must not trust what it cached. A subscriber that loads what changed returns the
 * load: a barrier waits for it.
 */
export type NotificationHandler = (payload: string | null) => void | Promise<void>;

/**
 * The replica's one LISTEN connection to PostgreSQL (NOTIFY is delivered at commit, to every
 * replica): each area subscribes to its channel here instead of holding a connection of its own.
 */
@Injectable()
export class DatabaseNotifications implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly handlers = new Map<string, NotificationHandler[]>();
  private listener: PoolClient | null = null;
  private closed = false;
  /** The loads subscribers returned that have not ended yet. */
  private readonly settling = new Set<Promise<void>>();
  /** This process's barriers: a prefix no other replica has, and each barrier's number. */
  private readonly barrierPrefix = `${randomUUID()}:`;
  private barriersSent = 0;
  /** The barriers sent whose notifications have not come back, by payload. */
  private readonly crossing = new Map<string, { readonly crossed: () => void; readonly failed: (error: Error) => void }>();
  /** The barrier that waits for the one in flight, joined by every caller until it is sent. */
  private queuedBarrier: Promise<void> | null = null;
  private lastBarrier: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.subscribe(BARRIER_CHANNEL, (payload) => this.crossed(payload));
  }

  /** Subscribes to a channel; one subscribed before the app has started is listened to when the connection opens. */
  subscribe(channel: string, handler: NotificationHandler): void {
    if (!/^corral_[a-z_]+$/.test(channel)) throw new Error(`channel '${channel}' must be corral_<lower-case name>`);
    const known = this.handlers.get(channel);
    if (known) known.push(handler);
    else {
      this.handlers.set(channel, [handler]);
      void this.listener?.query(`LISTEN ${channel}`).catch((error: unknown) => this.lost(error));
    }
  }

  /**
   * Resolves once every notification of a transaction that committed before the call has reached
   * its subscribers and the loads they returned have ended: a read made then sees every change
   * committed before the call, whichever replica made it (read-your-writes across replicas).
   * PostgreSQL delivers notifications in commit order, so this replica notifies itself and waits
   * for that notification. Callers that come while one barrier is in flight share the next one,
   * so many reads cost one round trip. Rejects with a 503 while notifications do not arrive; a
   * barrier whose notification does not come back within BARRIER_TIMEOUT_MS takes the listening
   * connection for broken and listens again on a new one.
   */
  barrier(): Promise<void> {
    if (this.queuedBarrier !== null) return this.queuedBarrier;
    const queued: Promise<void> = this.lastBarrier.then(() => {
      this.queuedBarrier = null;
      return this.crossBarrier();
    });
    this.queuedBarrier = queued;
    this.lastBarrier = queued.catch(() => undefined);
    return queued;
  }

  /** Whether notifications arrive now: while they don't, a subscriber must not cache. */
  get listening(): boolean {
    return this.listener !== null;
  }

  /**
   * Listens once the whole app has started: an app that fails to start holds no connection open.
   * Until then subscribers cache nothing (`listening` is false).
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    this.crossed(null);
    const listener = this.listener;
    this.listener = null;
    // Destroyed, not returned to the pool: a pooled connection must not go on listening.
    listener?.release(true);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    let client: PoolClient | null = null;
    try {
      const pool = (this.dataSource.driver as unknown as { master: { connect(): Promise<PoolClient> } }).master;
      client = await pool.connect();
      const connection = client;
      connection.on('notification', (message) => this.deliver(message.channel, message.payload ?? ''));
      connection.on('error', (error) => {
        // A connection this replica already let go of (closing, or replaced) has nothing to say.
        if (this.listener === connection) this.lost(error);
      });
      for (const channel of this.handlers.keys()) await connection.query(`LISTEN ${channel}`);
      this.listener = connection;
      this.resync();
    } catch (error) {
      client?.release(true);
      this.logger.warn({ err: error }, 'cannot listen for database notifications; retrying');
      setTimeout(() => void this.listen(), RELISTEN_MS).unref();
    }
  }

  private lost(error: unknown): void {
    if (this.closed || this.listener === null) return;
    this.logger.warn({ err: error }, 'database notification listener lost its connection; reconnecting');
    this.listener.release(true);
    this.listener = null;
    this.resync();
    setTimeout(() => void this.listen(), RELISTEN_MS).unref();
  }

  private async crossBarrier(): Promise<void> {
    if (this.listener === null) throw databaseUnreachable();
    const payload = `${this.barrierPrefix}${++this.barriersSent}`;
    const crossed = new Promise<void>((resolve, reject) => this.crossing.set(payload, { crossed: resolve, failed: reject }));
    try {
      await this.dataSource.query('SELECT pg_notify($1, $2)', [BARRIER_CHANNEL, payload]);
    } catch (error) {
      this.crossing.delete(payload);
      throw error;
    }
    const overdue = setTimeout(() => {
      if (this.crossing.has(payload)) this.lost(new Error(`a barrier's notification did not come back within ${BARRIER_TIMEOUT_MS} ms`));
    }, BARRIER_TIMEOUT_MS);
    try {
      await crossed;
    } finally {
      clearTimeout(overdue);
    }
  }

  /** A barrier's notification: this replica's own resolves once the loads started before it have ended; `null` (missed notifications) fails every barrier in flight. */
  private crossed(payload: string | null): void {
    if (payload === null) {
      for (const waiting of this.crossing.values()) waiting.failed(databaseUnreachable());
      this.crossing.clear();
      return;
    }
    const waiting = this.crossing.get(payload);
    if (waiting === undefined) return;
    this.crossing.delete(payload);
    void Promise.all([...this.settling]).then(waiting.crossed);
  }

  private resync(): void {
    for (const channel of this.handlers.keys()) this.deliver(channel, null);
  }

  private deliver(channel: string, payload: string | null): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        const load = handler(payload);
        if (load !== undefined) this.settle(load, channel);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'a notification handler failed');
      }
    }
  }

  private settle(load: Promise<void>, channel: string): void {
    const settled = load.catch((error: unknown) => this.logger.error({ err: error, channel }, 'a notification handler failed'));
    this.settling.add(settled);
    void settled.then(() => this.settling.delete(settled));
  }
}
