import { DataSource } from 'typeorm';
import { ENTITIES } from './entities.js';
import type { DatabaseLocation } from './database/database.js';
import { MIGRATIONS } from './database/migrations/index.js';

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
  });
}
