import type { MigrationInterface, QueryRunner } from 'typeorm';

/** HA groups and resources, the HA manager's row, and each node's HA lease (issue 8, docs/ha.md). */
export class HighAvailability1764400000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "ha_groups" ("group" text NOT NULL, "nodes" jsonb NOT NULL, "restricted" boolean NOT NULL DEFAULT false, "nofailback" boolean NOT NULL DEFAULT false, "comment" text, CONSTRAINT "PK_9b52a1ed5bf1ee078b5da746628" PRIMARY KEY ("group"))`,
    );
    await db.query(
      `CREATE TABLE "ha_manager" ("id" smallint NOT NULL, "holder" text NOT NULL, "since" TIMESTAMP WITH TIME ZONE NOT NULL, "last_round" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_27561cec0caaf90dd097d813b9e" PRIMARY KEY ("id"))`,
    );
    await db.query(
      `CREATE TABLE "ha_resources" ("vmid" integer NOT NULL, "type" text NOT NULL, "state" text NOT NULL DEFAULT 'started', "group" text, "max_restart" integer NOT NULL DEFAULT '1', "max_relocate" integer NOT NULL DEFAULT '1', "comment" text, "crm_state" text NOT NULL DEFAULT 'started', "restarts" integer NOT NULL DEFAULT '0', "relocations" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_52a6e2716b62a0d300bc05de4c9" PRIMARY KEY ("vmid"))`,
    );
    await db.query(`CREATE INDEX "IDX_979c67c68545fbb8a72cc18643" ON "ha_resources" ("group")`);
    await db.query(`ALTER TABLE "nodes" ADD "lease_until" TIMESTAMP WITH TIME ZONE`);
    await db.query(
      `ALTER TABLE "ha_resources" ADD CONSTRAINT "FK_52a6e2716b62a0d300bc05de4c9" FOREIGN KEY ("vmid") REFERENCES "guests"("vmid") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await db.query(
      `ALTER TABLE "ha_resources" ADD CONSTRAINT "FK_979c67c68545fbb8a72cc186431" FOREIGN KEY ("group") REFERENCES "ha_groups"("group") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "ha_resources" DROP CONSTRAINT "FK_979c67c68545fbb8a72cc186431"`);
    await db.query(`ALTER TABLE "ha_resources" DROP CONSTRAINT "FK_52a6e2716b62a0d300bc05de4c9"`);
    await db.query(`ALTER TABLE "nodes" DROP COLUMN "lease_until"`);
    await db.query(`DROP INDEX "public"."IDX_979c67c68545fbb8a72cc18643"`);
    await db.query(`DROP TABLE "ha_resources"`);
    await db.query(`DROP TABLE "ha_manager"`);
    await db.query(`DROP TABLE "ha_groups"`);
  }
}
