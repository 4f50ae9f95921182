import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The external metric servers: their type, settings, token, and whether their sends fail. */
export class MetricServers1765500000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "metric_servers" ("id" text NOT NULL, "type" text NOT NULL, "disable" boolean NOT NULL DEFAULT false, "settings" jsonb NOT NULL, "token" text, "error" text, "failing_since" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_metric_servers" PRIMARY KEY ("id"))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "metric_servers"`);
  }
}
