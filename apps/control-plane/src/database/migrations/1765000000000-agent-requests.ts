import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The commands tasks sent to agents and not yet answered, so that an answer reaching another
 * replica (the agent moved there) gets to the task.
 */
export class AgentRequests1765000000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "agent_requests" (
        "id" text PRIMARY KEY,
        "upid" text NOT NULL,
        "node" text NOT NULL,
        "session" text NOT NULL,
        "command" text NOT NULL,
        "ends_task" boolean NOT NULL,
        "timeout_ms" integer NOT NULL,
        "sent" timestamptz NOT NULL DEFAULT now(),
        "lines" jsonb NOT NULL DEFAULT '[]',
        "answer" jsonb
      )`,
    );
    await db.query(`CREATE INDEX "IDX_agent_requests_upid" ON "agent_requests" ("upid")`);
    await db.query(`CREATE INDEX "IDX_agent_requests_unanswered" ON "agent_requests" ("node") WHERE "answer" IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "agent_requests"`);
  }
}
