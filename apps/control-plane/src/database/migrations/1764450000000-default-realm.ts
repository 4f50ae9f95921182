import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The default realm of `/access/domains` (docs/access-control.md "Realms"). */
export class DefaultRealm1764450000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "realms" ADD "is_default" boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "realms" DROP COLUMN "is_default"`);
  }
}
