import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every change of an HA resource's requested state or group, and every insert and delete (a guest's delete cascades), notifies `corral_ha_resources` with its vmid. */
export class HaResourceChanges1765200000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE FUNCTION "ha_resources_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('corral_ha_resources', COALESCE(NEW."vmid", OLD."vmid")::text); RETURN NULL; END $$`,
    );
    await db.query(
      `CREATE TRIGGER "ha_resources_changed" AFTER INSERT OR DELETE OR UPDATE OF "state", "group" ON "ha_resources" FOR EACH ROW EXECUTE FUNCTION "ha_resources_changed"()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER "ha_resources_changed" ON "ha_resources"`);
    await db.query(`DROP FUNCTION "ha_resources_changed"()`);
  }
}
