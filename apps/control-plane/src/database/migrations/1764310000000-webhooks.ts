import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook notification targets and their secrets, matchers and the targets they name, deliveries
 * and the dispatcher's cursor (issue 7, docs/webhooks.md). The cursor starts at the newest event:
 * events from before webhooks existed are not sent.
 */
export class Webhooks1764310000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "notification_webhooks" ("name" text NOT NULL, "url" text NOT NULL, "headers" jsonb NOT NULL DEFAULT '[]', "comment" text, "disable" boolean NOT NULL DEFAULT false, "allow_local" boolean NOT NULL DEFAULT false, "timeout" integer NOT NULL DEFAULT '10', CONSTRAINT "PK_01d376e44382942872f9b449ff1" PRIMARY KEY ("name"))`,
    );
    await db.query(
      `CREATE TABLE "notification_webhook_secrets" ("webhook" text NOT NULL, "name" text NOT NULL, "value" text NOT NULL, CONSTRAINT "PK_5f379b93320e1bb14c30fbd6f40" PRIMARY KEY ("webhook", "name"))`,
    );
    await db.query(
      `CREATE TABLE "notification_matchers" ("name" text NOT NULL, "match_field" jsonb NOT NULL DEFAULT '[]', "match_severity" jsonb NOT NULL DEFAULT '[]', "mode" text NOT NULL DEFAULT 'all', "invert_match" boolean NOT NULL DEFAULT false, "comment" text, "disable" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_65adb66628f9864c15631ad84bd" PRIMARY KEY ("name"))`,
    );
    await db.query(`CREATE TABLE "notification_matcher_targets" ("matcher" text NOT NULL, "target" text NOT NULL, CONSTRAINT "PK_3ca01ac76186845c2f9d4cdcf63" PRIMARY KEY ("matcher", "target"))`);
    await db.query(`CREATE INDEX "IDX_c004db371f4ee04d349987c725" ON "notification_matcher_targets" ("target")`);
    await db.query(
      `CREATE TABLE "notification_deliveries" ("id" BIGSERIAL NOT NULL, "webhook" text NOT NULL, "ordering_key" text NOT NULL, "event_seq" bigint NOT NULL, "event_id" uuid NOT NULL, "event" text NOT NULL, "node" text NOT NULL, "vmid" integer, "body" text NOT NULL, "state" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "next_attempt" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_attempt" TIMESTAMP WITH TIME ZONE, "last_status" integer, "last_error" text, "lease_until" TIMESTAMP WITH TIME ZONE, "lease_token" uuid, CONSTRAINT "PK_81daeff81f237bd384f7cfc4a4c" PRIMARY KEY ("id"))`,
    );
    await db.query(`CREATE INDEX "IDX_3b2e570165f8df48d28ec5a8a5" ON "notification_deliveries" ("webhook", "id")`);
    await db.query(`CREATE INDEX "IDX_7cf87de4d4b07b8f592f277591" ON "notification_deliveries" ("webhook", "ordering_key", "id") WHERE "state" = 'pending'`);
    await db.query(`CREATE TABLE "notification_dispatch_cursor" ("id" smallint NOT NULL, "seq" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_157593204dc4bec192ebe84f7e9" PRIMARY KEY ("id"))`);
    await db.query(`INSERT INTO "notification_dispatch_cursor" ("id", "seq") SELECT 1, COALESCE(MAX("seq"), 0) FROM "events"`);
    await db.query(
      `ALTER TABLE "notification_webhook_secrets" ADD CONSTRAINT "FK_c77b57be8e3fe1c2bed254002ce" FOREIGN KEY ("webhook") REFERENCES "notification_webhooks"("name") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await db.query(
      `ALTER TABLE "notification_matcher_targets" ADD CONSTRAINT "FK_1b4db598631cd021f9cd73dbb4b" FOREIGN KEY ("matcher") REFERENCES "notification_matchers"("name") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await db.query(
      `ALTER TABLE "notification_matcher_targets" ADD CONSTRAINT "FK_c004db371f4ee04d349987c7256" FOREIGN KEY ("target") REFERENCES "notification_webhooks"("name") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await db.query(
      `ALTER TABLE "notification_deliveries" ADD CONSTRAINT "FK_09392e888a12d96f32731c82ddc" FOREIGN KEY ("webhook") REFERENCES "notification_webhooks"("name") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['notification_dispatch_cursor', 'notification_deliveries', 'notification_matcher_targets', 'notification_matchers', 'notification_webhook_secrets', 'notification_webhooks']) {
      await db.query(`DROP TABLE "${table}"`);
    }
  }
}
