import { createDatabase, databaseUrl, openTestRun, TestPostgres } from '@corral/testing';
import { createDataSource } from '../src/data-source.js';
import { migrate } from '../src/database/migrate.js';
import { TEMPLATE_HANDOVER } from './test-database.js';

/** Makes the run's folder, starts the run's PostgreSQL and migrates the template every test file clones its database from. */
export default async function globalSetup(): Promise<void> {
  await openTestRun();
  const postgres = await TestPostgres.start();
  postgres.handOver();
  const template = await createDatabase(postgres.admin, { name: `corral_template_${process.pid}` });
  const dataSource = createDataSource({ url: databaseUrl(postgres.admin, template) });
  await dataSource.initialize();
  await migrate(dataSource);
  await dataSource.destroy();
  process.env[TEMPLATE_HANDOVER] = template;
  (globalThis as { corralTestPostgres?: TestPostgres }).corralTestPostgres = postgres;
}
