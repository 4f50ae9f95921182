import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Guests with their configuration, nextid reservations, and storage definitions with PVE's `local` (issue 5). */
export class Guests1763950000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "guests" ("vmid" integer NOT NULL, "type" text NOT NULL, "node" text NOT NULL, "config" jsonb NOT NULL, "lock" text, "status" text NOT NULL DEFAULT 'stopped', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2e29861663513d4096fc7cdef01" PRIMARY KEY ("vmid"))`);
    await db.query(`CREATE INDEX "IDX_ed68010134b02495481a5205d0" ON "guests"  ("node")`);
    await db.query(`CREATE TABLE "vmid_reservations" ("vmid" integer NOT NULL, "expires" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a603581015995a85e1f8411b885" PRIMARY KEY ("vmid"))`);
    await db.query(`CREATE TABLE "storages" ("storage" text NOT NULL, "type" text NOT NULL, "path" text NOT NULL, "content" text array NOT NULL, "nodes" text array, "shared" boolean NOT NULL DEFAULT false, "disable" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_1e656ac53a5b06803eb5863ef4a" PRIMARY KEY ("storage"))`);
    await db.query(`INSERT INTO "storages" ("storage", "type", "path", "content") VALUES ('local', 'dir', '/var/lib/vz', '{images,rootdir,vztmpl,iso,backup,snippets}')`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['storages', 'vmid_reservations', 'guests']) {
      await db.query(`DROP TABLE "${table}"`);
    }
  }
}
