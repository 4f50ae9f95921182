import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Finds an agent's event by `(node, session, seq)`, which the control plane writes once (agents/agent-reports.ts). */
export class AgentEventIdentity1764800000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX "IDX_events_agent_frame" ON "events" ("node", ("details"->>'session'), ("details"->>'seq')) WHERE "details" ? 'seq'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "IDX_events_agent_frame"`);
  }
}
