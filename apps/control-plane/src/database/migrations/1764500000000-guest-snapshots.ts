import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Guest snapshots' metadata (docs/guests.md "Snapshots"), removed with their guest. */
export class GuestSnapshots1764500000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE "guest_snapshots" ("vmid" integer NOT NULL, "name" text NOT NULL, "parent" text, "description" text NOT NULL DEFAULT '', "snaptime" TIMESTAMP WITH TIME ZONE NOT NULL, "vmstate" boolean NOT NULL DEFAULT false, "config" jsonb NOT NULL, CONSTRAINT "PK_guest_snapshots" PRIMARY KEY ("vmid", "name"))`,
    );
    await db.query(
      `ALTER TABLE "guest_snapshots" ADD CONSTRAINT "FK_1f2f93a88f449809adc97d7f665" FOREIGN KEY ("vmid") REFERENCES "guests"("vmid") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "guest_snapshots" DROP CONSTRAINT "FK_1f2f93a88f449809adc97d7f665"`);
    await db.query(`DROP TABLE "guest_snapshots"`);
  }
}
