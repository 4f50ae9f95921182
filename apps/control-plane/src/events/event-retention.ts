import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { CONFIG, type Config } from '../config/config.js';
import { LOGGER } from '../logging/loggers.js';
import { EventsRepository } from './events.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Every replica sweeps this often: the delete is idempotent, so no replica needs to be elected for it. */
const SWEEP_MS = 10 * 60 * 1000;
/** Rows per delete, so that a first sweep of a large backlog holds no lock for long. */
const BATCH = 10_000;

/** Deletes the events older than CORRAL_EVENT_RETENTION_DAYS (at least 7), at start and then periodically. */
@Injectable()
export class EventRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: EventsRepository,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    void this.sweepLogged();
    this.timer = setInterval(() => void this.sweepLogged(), SWEEP_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Deletes what happened more than the retention period before `now`; returns how many events went. */
  async sweep(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.eventRetentionDays * DAY_MS);
    let deleted = 0;
    let batch: number;
    do {
      batch = await this.repository.prune(before, BATCH);
      deleted += batch;
    } while (batch === BATCH);
    return deleted;
  }

  private async sweepLogged(): Promise<void> {
    try {
      const deleted = await this.sweep();
      if (deleted > 0) this.logger.info({ deleted, days: this.config.eventRetentionDays }, 'deleted events past their retention');
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot delete old events; the next sweep will');
    }
  }
}
