import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The task that holds each guest's lock: when it has ended, the lock is reconciled with the guest's agent. */
export class GuestLockTask1764700000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "guests" ADD "lock_task" text`);
    await db.query(`CREATE INDEX "IDX_guests_lock_task" ON "guests" ("lock_task") WHERE "lock_task" IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "IDX_guests_lock_task"`);
    await db.query(`ALTER TABLE "guests" DROP COLUMN "lock_task"`);
  }
}
