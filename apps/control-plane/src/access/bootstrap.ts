import { SUPERUSER } from '@corral/acl';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CONFIG, type Config } from '../config/config.js';
import { LOGGER } from '../logging/loggers.js';
import { hashPassword } from './auth/passwords.js';
import { RealmRow } from './entities/realm.entity.js';
import { UserRow } from './entities/user.entity.js';
import { AccessState } from './state/access-state.js';

export const ROOT_PASSWORD_FILE = 'root-password';

/**
 * First start: creates root@pam, which holds every privilege on `/`, with the
 * password from CORRAL_ROOT_PASSWORD or a generated one, printed once on stderr (never logged) and
 * written to `<data dir>/root-password` (0600). Every start: the configured OAuth issuer's realm exists.
 */
@Injectable()
export class AccessBootstrap implements OnModuleInit {
  constructor(
    private readonly state: AccessState,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.ensureOidcRealm();
    await this.ensureRoot();
  }

  private async ensureRoot(): Promise<void> {
    const access = await this.state.current();
    if (access.users.has(SUPERUSER)) return;
    const generated = this.config.rootPassword === null;
    const password = this.config.rootPassword ?? randomBytes(18).toString('base64url');
    const passwordHash = await hashPassword(password);
    const created = await this.state.write(async (db) => {
      const result = await db
        .createQueryBuilder()
        .insert()
        .into(UserRow)
        .values({ userid: SUPERUSER, realm: 'pam', passwordHash, comment: 'Corral administrator' })
        .orIgnore()
        .execute();
      return (result.raw as unknown[]).length > 0;
    });
    // Another replica starting at the same time created it first.
    if (!created) return;
    if (!generated) return this.logger.info('created root@pam with the password from CORRAL_ROOT_PASSWORD');
    const file = join(this.config.dataDir, ROOT_PASSWORD_FILE);
    await writeFile(file, `${password}\n`, { mode: 0o600 });
    process.stderr.write(`\nroot@pam password (shown once, also in ${file}): ${password}\n\n`);
    this.logger.info({ file }, 'created root@pam with a generated password');
  }

  private async ensureOidcRealm(): Promise<void> {
    const oidc = this.config.oidc;
    if (!oidc) return;
    const existing = (await this.state.current()).realms.get(oidc.realm);
    if (existing && existing.type !== 'oidc')
      throw new Error(`CORRAL_OIDC_REALM '${oidc.realm}' is a ${existing.type} realm, not an oidc one`);
    if (existing?.autocreate === oidc.autocreate) return;
    await this.state.write((db) =>
      db.upsert(RealmRow, { realm: oidc.realm, type: 'oidc', comment: `OAuth 2.0 issuer ${oidc.issuer}`, autocreate: oidc.autocreate }, [
        'realm',
      ]),
    );
  }
}
