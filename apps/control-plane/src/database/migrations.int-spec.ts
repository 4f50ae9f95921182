import { DataSource, Entity, PrimaryColumn } from 'typeorm';
import { testDataSource } from '../../test-support/test-database.js';
import { ENTITIES } from '../entities.js';
import { MIGRATIONS } from './migrations/index.js';
import { pendingSchemaChanges } from './migrate.js';

@Entity({ name: 'not_migrated' })
class NotMigrated {
  @PrimaryColumn('integer')
  id!: number;
}

describe('migrations', () => {
  it('describe the entities exactly: TypeORM would generate nothing for a freshly migrated database', async () => {
    const db = await testDataSource();
    try {
      const applied = (await db.dataSource.query('SELECT name FROM migrations ORDER BY id')) as { name: string }[];
      expect(applied.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
      expect(await pendingSchemaChanges(db.dataSource)).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  it('the check reports the SQL still missing when an entity has no migration', async () => {
    const db = await testDataSource();
    const drifted = new DataSource({ ...(db.dataSource.options as object), type: 'postgres', entities: [...ENTITIES, NotMigrated] });
    try {
      await drifted.initialize();
      expect((await pendingSchemaChanges(drifted)).join('\n')).toMatch(/CREATE TABLE "not_migrated"/);
    } finally {
      if (drifted.isInitialized) await drifted.destroy();
      await db.drop();
    }
  });
});
