import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Scheduled backup jobs (issue 6, `/cluster/backup`), and the last slot each ran on each node. */
export class BackupJobs1764200000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "backup_jobs" ("id" text NOT NULL, "schedule" text NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "node" text, "comment" text, "repeat_missed" boolean NOT NULL DEFAULT true, "params" jsonb NOT NULL, "due_after" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_d63aa10bc561df545b6532201c6" PRIMARY KEY ("id"))`,
    );
    await db.query(
      `CREATE TABLE "backup_job_runs" ("job_id" text NOT NULL, "node" text NOT NULL, "last_slot" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_5b8acad78119ef1ea8ae01e7088" PRIMARY KEY ("job_id", "node"))`,
    );
    await db.query(
      `ALTER TABLE "backup_job_runs" ADD CONSTRAINT "FK_b4269b335ea9f98d25c16a94f93" FOREIGN KEY ("job_id") REFERENCES "backup_jobs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "backup_job_runs"`);
    await db.query(`DROP TABLE "backup_jobs"`);
  }
}
