import type { DataSource } from 'typeorm';

// Any constant works; it only has to be the same for every control-plane replica.
const MIGRATION_LOCK = 0x636f7272; // "corr"

/**
 * Runs pending migrations, each in its own transaction, holding an advisory lock so that replicas
 * starting together against one PostgreSQL migrate one after the other. Returns their names.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
  }
}

/**
 * The SQL TypeORM would still put into a new migration for this database: empty when the migrations
 * describe the entities exactly (the `migration:generate --check` of the TypeORM CLI).
 */
export async function pendingSchemaChanges(dataSource: DataSource): Promise<string[]> {
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return sql.upQueries.map((query) => query.query);
}
