import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resource pools and their members (issue 6). A trigger notifies `corral_access` (the access
 * snapshot's channel, delivered at commit) on every change of membership: also the ones no API
 * call makes, a guest's or storage's deletion taking its membership with it by cascade.
 */
export class Pools1764000000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "pools" ("poolid" text NOT NULL, "comment" text, CONSTRAINT "PK_ba22c3a7d8daab9f368e53488ef" PRIMARY KEY ("poolid"))`);
    await db.query(`CREATE TABLE "pool_guests" ("vmid" integer NOT NULL, "poolid" text NOT NULL, CONSTRAINT "PK_4c6a0c817f370711da68fc2b94b" PRIMARY KEY ("vmid"))`);
    await db.query(`CREATE INDEX "IDX_f7356b1d9f968ced734e6f8ad4" ON "pool_guests"  ("poolid") `);
    await db.query(`CREATE TABLE "pool_storages" ("poolid" text NOT NULL, "storage" text NOT NULL, CONSTRAINT "PK_790140ba72508b1c545ea773f25" PRIMARY KEY ("poolid", "storage"))`);
    await db.query(`ALTER TABLE "pool_guests" ADD CONSTRAINT "FK_4c6a0c817f370711da68fc2b94b" FOREIGN KEY ("vmid") REFERENCES "guests"("vmid") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "pool_guests" ADD CONSTRAINT "FK_f7356b1d9f968ced734e6f8ad4d" FOREIGN KEY ("poolid") REFERENCES "pools"("poolid") ON DELETE NO ACTION ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "pool_storages" ADD CONSTRAINT "FK_a42704d0e5788b46f05fde12604" FOREIGN KEY ("poolid") REFERENCES "pools"("poolid") ON DELETE NO ACTION ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "pool_storages" ADD CONSTRAINT "FK_9baa21086b85925cff20f2fe5d3" FOREIGN KEY ("storage") REFERENCES "storages"("storage") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await db.query(`CREATE FUNCTION "pool_members_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('corral_access', ''); RETURN NULL; END $$`);
    for (const table of ['pool_guests', 'pool_storages']) {
      await db.query(`CREATE TRIGGER "${table}_changed" AFTER INSERT OR UPDATE OR DELETE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION "pool_members_changed"()`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['pool_storages', 'pool_guests', 'pools']) {
      await db.query(`DROP TABLE "${table}"`);
    }
    await db.query(`DROP FUNCTION "pool_members_changed"()`);
  }
}
