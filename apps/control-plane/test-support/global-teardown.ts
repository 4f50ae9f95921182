import { closeTestRun, dropDatabase, type TestPostgres } from '@corral/testing';
import { TEMPLATE_HANDOVER } from './test-database.js';

export default async function globalTeardown(): Promise<void> {
  const postgres = (globalThis as { corralTestPostgres?: TestPostgres }).corralTestPostgres;
  const template = process.env[TEMPLATE_HANDOVER];
  if (postgres) {
    if (template) await dropDatabase(postgres.admin, template);
    await postgres.stop();
  }
  await closeTestRun();
}
