import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Issue 7: how far retention has deleted events, in one row, so that a stream cursor below it is refused (410). */
export class EventRetention1764300000100 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "event_retention" ("id" smallint NOT NULL, "pruned_through" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_b259d083e831862df8d0fb881e3" PRIMARY KEY ("id"))`);
    await db.query(`INSERT INTO "event_retention" ("id", "pruned_through") VALUES (1, 0)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "event_retention"`);
  }
}
