import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Issue 7: each event's `id` (receivers drop duplicates by it; existing events get one each), and the index retention deletes by. */
export class EventIds1764300000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "events" ADD "id" uuid NOT NULL DEFAULT gen_random_uuid()`);
    await db.query(`ALTER TABLE "events" ADD CONSTRAINT "UQ_40731c7151fe4be3116e45ddf73" UNIQUE ("id")`);
    await db.query(`CREATE INDEX "IDX_b5a6ad5d1dc980d07d07969525" ON "events"  ("timestamp")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "IDX_b5a6ad5d1dc980d07d07969525"`);
    await db.query(`ALTER TABLE "events" DROP CONSTRAINT "UQ_40731c7151fe4be3116e45ddf73"`);
    await db.query(`ALTER TABLE "events" DROP COLUMN "id"`);
  }
}
