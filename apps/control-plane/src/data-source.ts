import { DataSource } from 'typeorm';
import { ENTITIES } from './entities.js';
import type { DatabaseLocation } from './database/database.js';
import { MIGRATIONS } from './database/migrations/index.js';

/**
 * How long a request waits for a connection (a new one, or one of the pool's) before it fails
 * with 503 "the database is unreachable", rather than hanging while PostgreSQL is away.
 */
export const DATABASE_CONNECT_TIMEOUT_MS = 5000;

/** The one DataSource definition, used by the app, the migration check and the tests. */
export function createDataSource(location: DatabaseLocation): DataSource {
  return new DataSource({
    type: 'postgres',
    ...location,
    entities: [...ENTITIES],
    migrations: [...MIGRATIONS],
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    // Migrations create the schema; uuid columns use PostgreSQL's own gen_random_uuid(), no extension.
    installExtensions: false,
    connectTimeoutMS: DATABASE_CONNECT_TIMEOUT_MS,
    // TCP keepalive: a connection to a server that vanished without closing it fails instead of waiting forever.
    extra: { keepAlive: true },
  });
}
