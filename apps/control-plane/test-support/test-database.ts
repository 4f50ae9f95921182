import { createDatabase, databaseUrl, dropDatabase, testPostgres } from '@corral/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../src/data-source.js';

export const TEMPLATE_HANDOVER = 'CORRAL_TEST_TEMPLATE';

/**
 * A database of this test file's own, cloned from the migrated template, and a DataSource on it;
 * `reach` turns its URL into the one the DataSource connects to (through a proxy).
 */
export async function testDataSource(
  reach: (url: string) => string = (url) => url,
): Promise<{ dataSource: DataSource; drop(): Promise<void> }> {
  const admin = testPostgres();
  const template = process.env[TEMPLATE_HANDOVER];
  if (!template) throw new Error('no template database: run through jest.int.config.cjs');
  const name = await createDatabase(admin, { template });
  const dataSource = createDataSource({ url: reach(databaseUrl(admin, name)) });
  await dataSource.initialize();
  return {
    dataSource,
    drop: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await dropDatabase(admin, name);
    },
  };
}
