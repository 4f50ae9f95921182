import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The cloud-init keys each VM's drive was last generated from (docs/guests.md "Cloud-init"), removed with their VM. */
export class GuestCloudinit1764600000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "guest_cloudinit" ("vmid" integer NOT NULL, "active" jsonb NOT NULL, CONSTRAINT "PK_guest_cloudinit" PRIMARY KEY ("vmid"))`);
    await db.query(`ALTER TABLE "guest_cloudinit" ADD CONSTRAINT "FK_c37e2fee3e67d40dde7caa702d9" FOREIGN KEY ("vmid") REFERENCES "guests"("vmid") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "guest_cloudinit" DROP CONSTRAINT "FK_c37e2fee3e67d40dde7caa702d9"`);
    await db.query(`DROP TABLE "guest_cloudinit"`);
  }
}
