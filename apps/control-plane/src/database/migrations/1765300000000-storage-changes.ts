import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every insert, change and delete of a storage definition notifies `corral_storages` with its id. */
export class StorageChanges1765300000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE FUNCTION "storages_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('corral_storages', COALESCE(NEW."storage", OLD."storage")); RETURN NULL; END $$`,
    );
    await db.query(
      `CREATE TRIGGER "storages_changed" AFTER INSERT OR DELETE OR UPDATE ON "storages" FOR EACH ROW EXECUTE FUNCTION "storages_changed"()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER "storages_changed" ON "storages"`);
    await db.query(`DROP FUNCTION "storages_changed"()`);
  }
}
