import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Nodes and their firewalls, join tokens, the event outbox, and tasks with their logs (issue 4). */
export class Nodes1763800000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "join_tokens" ("id" text NOT NULL, "secret_hash" text NOT NULL, "expire" bigint NOT NULL, "node" text, "replace" boolean NOT NULL DEFAULT false, "comment" text, "created_by" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9986420251c0e0c4ce2b008388f" PRIMARY KEY ("id"))`);
    await db.query(`CREATE TABLE "events" ("seq" BIGSERIAL NOT NULL, "event" text NOT NULL, "node" text NOT NULL, "vmid" integer, "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL, "details" jsonb NOT NULL DEFAULT '{}', CONSTRAINT "PK_44840d7c5944a3bfbf21a6113d8" PRIMARY KEY ("seq"))`);
    await db.query(`CREATE TABLE "nodes" ("name" text NOT NULL, "credential_hash" text NOT NULL, "joined_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "online" boolean NOT NULL DEFAULT false, "last_seen" TIMESTAMP WITH TIME ZONE, "connection" text, "agent_version" text, "capabilities" text array NOT NULL DEFAULT '{}', "inventory" jsonb, CONSTRAINT "PK_b8645506b68b2c103372aacc0ff" PRIMARY KEY ("name"))`);
    await db.query(`CREATE UNIQUE INDEX "IDX_25ce59809faa8b869289d9bbb8" ON "nodes"  ("credential_hash")`);
    await db.query(`CREATE TABLE "node_firewalls" ("node" text NOT NULL, "enable" boolean NOT NULL DEFAULT false, "policy_in" text NOT NULL DEFAULT 'DROP', "policy_out" text NOT NULL DEFAULT 'ACCEPT', "rules" jsonb NOT NULL DEFAULT '[]', "aliases" jsonb NOT NULL DEFAULT '[]', CONSTRAINT "PK_bb0149cf5e50be192cc8dd44c93" PRIMARY KEY ("node"))`);
    await db.query(`CREATE TABLE "tasks" ("upid" text NOT NULL, "node" text NOT NULL, "type" text NOT NULL, "id" text NOT NULL, "user" text NOT NULL, "pid" integer NOT NULL, "pstart" bigint NOT NULL, "starttime" bigint NOT NULL, "endtime" bigint, "exitstatus" text, CONSTRAINT "PK_4798539190859d1597ed4c9eb18" PRIMARY KEY ("upid"))`);
    await db.query(`CREATE INDEX "IDX_7b1d14188e482909f7e75736fc" ON "tasks"  ("node", "starttime")`);
    await db.query(`CREATE TABLE "task_logs" ("upid" text NOT NULL, "n" integer NOT NULL, "t" text NOT NULL, CONSTRAINT "PK_eb3759f3e84266ab20558d2da25" PRIMARY KEY ("upid", "n"))`);
    await db.query(`ALTER TABLE "node_firewalls" ADD CONSTRAINT "FK_bb0149cf5e50be192cc8dd44c93" FOREIGN KEY ("node") REFERENCES "nodes"("name") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "task_logs" ADD CONSTRAINT "FK_3037edb894b095e61e61ff8d342" FOREIGN KEY ("upid") REFERENCES "tasks"("upid") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['task_logs', 'tasks', 'node_firewalls', 'nodes', 'events', 'join_tokens']) {
      await db.query(`DROP TABLE "${table}"`);
    }
  }
}
