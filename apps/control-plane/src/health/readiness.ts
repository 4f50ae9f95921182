import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../errors/api-error.js';

/** How long the database may take to answer before the replica is not ready. */
const DATABASE_ANSWER_MS = 2000;

/**
 * Whether this replica can serve the API: the database answers, every migration this version
 * knows is applied (another replica may have rolled the schema back, or the database been
 * replaced), and it is not shutting down. Shutting down begins when the app starts to close, while
 * requests in flight are still answered, so that a load balancer stops sending new ones.
 */
@Injectable()
export class Readiness implements OnModuleDestroy {
  private stopping = false;

  constructor(private readonly dataSource: DataSource) {}

  onModuleDestroy(): void {
    this.stopping = true;
  }

  /** Resolves when ready; otherwise a 503 (`NOT_READY`) naming what is not. */
  async check(): Promise<void> {
    if (this.stopping) throw notReady('this replica is shutting down');
    const applied = await within(this.appliedMigrations(), DATABASE_ANSWER_MS).catch(() => {
      // Without the driver's words: anyone may ask, and they may name hosts and users.
      throw notReady('the database is unreachable');
    });
    if (applied === LATE) throw notReady(`the database does not answer within ${DATABASE_ANSWER_MS / 1000} s`);
    const missing = this.dataSource.migrations
      .map((migration) => migration.name ?? migration.constructor.name)
      .filter((name) => !applied.has(name));
    if (missing.length > 0) throw notReady(`${missing.length} migration(s) of this version are not applied: ${missing.join(', ')}`);
  }

  private async appliedMigrations(): Promise<ReadonlySet<string>> {
    const rows = (await this.dataSource.query(`SELECT "name" FROM "migrations"`)) as { name: string }[];
    return new Set(rows.map((row) => row.name));
  }
}

function notReady(why: string): ApiError {
  return new ApiError('NOT_READY', `not ready: ${why}`);
}

const LATE = Symbol('late');

/** The answer, or LATE when it does not come within `ms`. */
async function within<T>(answer: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
