import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Storage definitions get PVE's `prune-backups` and `is_mountpoint` (issue 6); `local` stays as it was. */
export class Storage1764100000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "storages" ADD "prune_backups" text`);
    await db.query(`ALTER TABLE "storages" ADD "is_mountpoint" boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "storages" DROP COLUMN "is_mountpoint"`);
    await db.query(`ALTER TABLE "storages" DROP COLUMN "prune_backups"`);
  }
}
