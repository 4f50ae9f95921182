import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The newest runtime report of each node, published by the replica holding its agent for the others; unlogged (rewritten every few seconds). */
export class NodeRuntime1765100000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE UNLOGGED TABLE "node_runtime" ("node" text PRIMARY KEY, "replica" text NOT NULL, "guests" jsonb NOT NULL, "at" timestamptz NOT NULL)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "node_runtime"`);
  }
}
