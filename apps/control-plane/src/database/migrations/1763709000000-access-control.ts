import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, realms, groups, custom roles, ACL entries, API tokens and ticket signing keys (issue 3). */
export class AccessControl1763709000000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "realms" ("realm" text NOT NULL, "type" text NOT NULL, "comment" text NOT NULL DEFAULT '', "autocreate" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_4a315d6683f7314d9f20821a6ae" PRIMARY KEY ("realm"))`);
    await db.query(`CREATE TABLE "users" ("userid" text NOT NULL, "realm" text NOT NULL, "enable" boolean NOT NULL DEFAULT true, "expire" bigint NOT NULL DEFAULT '0', "firstname" text, "lastname" text, "email" text, "comment" text, "keys" text, "password_hash" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_37b098e31baedfa2b76e7876998" PRIMARY KEY ("userid"))`);
    await db.query(`CREATE TABLE "groups" ("groupid" text NOT NULL, "comment" text, CONSTRAINT "PK_6c4203f48709c31b82f39d1446e" PRIMARY KEY ("groupid"))`);
    await db.query(`CREATE TABLE "group_members" ("groupid" text NOT NULL, "userid" text NOT NULL, CONSTRAINT "PK_607797fb064d44815dc9ad5050e" PRIMARY KEY ("groupid", "userid"))`);
    await db.query(`CREATE TABLE "roles" ("roleid" text NOT NULL, "privs" text array NOT NULL, CONSTRAINT "PK_84da135492452965a3f9a96daf4" PRIMARY KEY ("roleid"))`);
    await db.query(`CREATE TABLE "acl_entries" ("path" text NOT NULL, "type" text NOT NULL, "ugid" text NOT NULL, "roleid" text NOT NULL, "propagate" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_e62e9b5a54add4e023ad33679d5" PRIMARY KEY ("path", "type", "ugid", "roleid"))`);
    await db.query(`CREATE TABLE "api_tokens" ("userid" text NOT NULL, "tokenid" text NOT NULL, "privsep" boolean NOT NULL DEFAULT true, "expire" bigint NOT NULL DEFAULT '0', "comment" text, "secret_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_03af2c53665f299073d9629ee57" PRIMARY KEY ("userid", "tokenid"))`);
    await db.query(`CREATE UNIQUE INDEX "IDX_7e7249acb8127967fc6b8907d6" ON "api_tokens" ("secret_hash")`);
    await db.query(`CREATE TABLE "ticket_keys" ("id" SERIAL NOT NULL, "secret" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_4769f285a7f672ce1855b59a8e0" PRIMARY KEY ("id"))`);
    await db.query(`ALTER TABLE "users" ADD CONSTRAINT "FK_d54c0034a40a87bc524a89f3358" FOREIGN KEY ("realm") REFERENCES "realms"("realm") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "api_tokens" ADD CONSTRAINT "FK_9ac746fbeb66874599bf6d11e68" FOREIGN KEY ("userid") REFERENCES "users"("userid") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "group_members" ADD CONSTRAINT "FK_76ad214e750b0a92f000ac40eb3" FOREIGN KEY ("groupid") REFERENCES "groups"("groupid") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await db.query(`ALTER TABLE "group_members" ADD CONSTRAINT "FK_63628bac752acc6b56a89aa2e65" FOREIGN KEY ("userid") REFERENCES "users"("userid") ON DELETE CASCADE ON UPDATE NO ACTION`);
    // The two local user databases every installation has (facts.md 1.5); `pam` holds root@pam.
    await db.query(`INSERT INTO "realms" ("realm", "type", "comment") VALUES ('pam', 'pam', 'Corral local users (root@pam)'), ('pve', 'pve', 'Corral authentication server')`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['ticket_keys', 'acl_entries', 'roles', 'group_members', 'groups', 'api_tokens', 'users', 'realms']) {
      await db.query(`DROP TABLE "${table}"`);
    }
  }
}
