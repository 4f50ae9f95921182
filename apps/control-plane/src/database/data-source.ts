import { DataSource } from 'typeorm';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/** Where the database is: a URL (DATABASE_URL), or the embedded cluster's socket. */
export type DatabaseLocation =
  | { readonly url: string }
  | { readonly host: string; readonly port: number; readonly username: string; readonly database: string };

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
