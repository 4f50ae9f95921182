import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where each replica is reached, and which replica holds each node's agent and from which address:
 * so that a request for a node is forwarded to its replica, and a command relayed to its agent.
 */
export class ReplicaRouting1764900000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "replicas" ADD "address" text`);
    await db.query(`ALTER TABLE "nodes" ADD "replica" text`);
    await db.query(`ALTER TABLE "nodes" ADD "address" text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "nodes" DROP COLUMN "address"`);
    await db.query(`ALTER TABLE "nodes" DROP COLUMN "replica"`);
    await db.query(`ALTER TABLE "replicas" DROP COLUMN "address"`);
  }
}
