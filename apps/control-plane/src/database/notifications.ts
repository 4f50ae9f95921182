import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { PoolClient } from 'pg';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '../logging/loggers.js';

const RELISTEN_MS = 1000;

/**
 * What a subscriber hears on its channel: a notification's payload, or `null` when notifications
 * may have been missed (the listening connection was lost, or is listening again), so the
 * subscriber must not trust what it cached.
 */
export type NotificationHandler = (payload: string | null) => void;

/**
 * The replica's one LISTEN connection to PostgreSQL (NOTIFY is delivered at commit, to every
 * replica): each area subscribes to its channel here instead of holding a connection of its own.
 */
@Injectable()
export class DatabaseNotifications implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly handlers = new Map<string, NotificationHandler[]>();
  private listener: PoolClient | null = null;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

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

  private resync(): void {
    for (const channel of this.handlers.keys()) this.deliver(channel, null);
  }

  private deliver(channel: string, payload: string | null): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'a notification handler failed');
      }
    }
  }
}
