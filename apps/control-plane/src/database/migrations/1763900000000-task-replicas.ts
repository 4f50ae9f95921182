import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Which control-plane replica runs each task, and the replicas' heartbeats, so that the tasks of a vanished replica are ended (issue 5). */
export class TaskReplicas1763900000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "replicas" ("id" text NOT NULL, "seen" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_6587a2c44763909278f24ae9357" PRIMARY KEY ("id"))`);
    // Tasks from before get replica '', which no replica has: one still running is ended by the first sweep.
    await db.query(`ALTER TABLE "tasks" ADD "replica" text NOT NULL DEFAULT ''`);
    await db.query(`ALTER TABLE "tasks" ALTER COLUMN "replica" DROP DEFAULT`);
    await db.query(`CREATE INDEX "IDX_164c761a627bca289bc5648e88" ON "tasks"  ("replica") WHERE "endtime" IS NULL`);
    await db.query(`CREATE INDEX "IDX_b0c2dfb002329ea756aee7b9e6" ON "tasks"  ("starttime") `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "IDX_b0c2dfb002329ea756aee7b9e6"`);
    await db.query(`DROP INDEX "IDX_164c761a627bca289bc5648e88"`);
    await db.query(`ALTER TABLE "tasks" DROP COLUMN "replica"`);
    await db.query(`DROP TABLE "replicas"`);
  }
}
