import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The history of the nodes, guests and storages: a point per series, level and slot. */
export class HistoryPoints1765400000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "history_points" ("series" text NOT NULL, "step" integer NOT NULL, "slot" bigint NOT NULL, "avg" jsonb NOT NULL, "max" jsonb NOT NULL, CONSTRAINT "PK_history_points" PRIMARY KEY ("series", "step", "slot"))`,
    );
    await db.query(`CREATE INDEX "IDX_history_points_step_slot" ON "history_points" ("step", "slot")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "history_points"`);
  }
}
