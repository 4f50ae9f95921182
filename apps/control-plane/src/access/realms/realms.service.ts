import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { checkDigest, entryDigest, flag, setAndDeleted } from '../../http/entry-changes.js';
import { CONFIG, type Config } from '../../config/config.js';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, badParam, notFound } from '../../errors/resource-errors.js';
import type { ParamsOf, ResultOf } from '../../http/endpoint.js';
import { RealmRow } from '../entities/realm.entity.js';
import { UserRow } from '../entities/user.entity.js';
import { AccessState } from '../state/access-state.js';
import type { createDomain, getDomain, listDomains, updateDomain } from './realms.endpoints.js';
import { refuseUnserved } from './unserved-realm-params.js';

const BUILT_IN = new Set(['pam', 'pve']);

/**
 * The realms of `/access/domains` (docs/access-control.md "Realms"), with PVE's rules: `pam` and
 * `pve` are built in (never created, never deleted), at most one realm is the default. Every
 * change is one `AccessState.write`, under its lock.
 */
@Injectable()
export class RealmsService {
  constructor(
    private readonly state: AccessState,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async list(): Promise<ResultOf<typeof listDomains>> {
    const { realms } = await this.state.current();
    return [...realms.values()]
      .sort((a, b) => (a.realm < b.realm ? -1 : 1))
      .map((row) => ({ realm: row.realm, type: row.type, ...commentOf(row), ...flag('default', row.isDefault) }));
  }

  async get(realm: string): Promise<ResultOf<typeof getDomain>> {
    const row = (await this.state.current()).realms.get(realm);
    if (!row) throw missing(realm);
    return this.recordOf(row);
  }

  async create(params: ParamsOf<typeof createDomain>): Promise<void> {
    refuseUnserved(params);
    const { realm, type } = params;
    if (type === 'ldap' || type === 'ad')
      throw badParam('type', `${type} realms are not served: Corral's realms are pam, pve and oidc (openid)`);
    await this.state.write(async (db) => {
      if (await db.existsBy(RealmRow, { realm })) throw alreadyExists(`domain '${realm}'`);
      if (BUILT_IN.has(realm)) throw badParam('realm', `unable to use reserved name '${realm}'`);
      if (type === 'pam' || type === 'pve') throw badParam('type', `unable to create builtin type '${type}'`);
      if (params.default) await clearDefault(db);
      await db.insert(RealmRow, {
        realm,
        type: 'oidc',
        comment: params.comment ?? '',
        isDefault: params.default ?? false,
        autocreate: params.autocreate ?? false,
      });
    });
  }

  /** Sets what is given and resets what `delete` names. */
  async update(params: ParamsOf<typeof updateDomain>): Promise<void> {
    refuseUnserved(params);
    const { realm, delete: deleted = [], digest } = params;
    const both = setAndDeleted(params, deleted);
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    await this.state.write(async (db) => {
      const row = await db.findOne(RealmRow, { where: { realm }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw missing(realm);
      checkDigest(this.recordOf(row).digest, digest);
      const autocreate = deleted.includes('autocreate') ? false : params.autocreate;
      if (autocreate !== undefined && row.type !== 'oidc')
        throw badParam(params.autocreate !== undefined ? 'autocreate' : 'delete', `${row.type} realms do not create users`);
      const isDefault = deleted.includes('default') ? false : (params.default ?? row.isDefault);
      if (isDefault && !row.isDefault) await clearDefault(db);
      const comment = deleted.includes('comment') ? '' : (params.comment ?? row.comment);
      await db.update(RealmRow, { realm }, { comment, isDefault, autocreate: autocreate ?? row.autocreate });
    });
  }

  async remove(realm: string): Promise<void> {
    await this.state.write(async (db) => {
      const row = await db.findOneBy(RealmRow, { realm });
      if (!row) throw notFound(`authentication domain '${realm}'`);
      if (BUILT_IN.has(realm)) throw badParam('realm', `the built-in realm '${realm}' cannot be removed`);
      if (realm === this.config.oidc?.realm)
        throw badParam('realm', `realm '${realm}' is the one CORRAL_OIDC_REALM names: it is made again at every start`);
      // Every access change holds the write lock, so no user of the realm is added meanwhile.
      const users = await db.find(UserRow, { where: { realm }, order: { userid: 'ASC' }, take: 6 });
      if (users.length > 0) {
        const named = users
          .slice(0, 5)
          .map((user) => user.userid)
          .join(', ');
        throw new ApiError('IN_USE', `realm '${realm}' still has users (${named}${users.length > 5 ? ', ...' : ''}): remove them first`);
      }
      await db.delete(RealmRow, { realm });
    });
  }

  private recordOf(row: RealmRow): ResultOf<typeof getDomain> {
    const oidc = this.config.oidc;
    const entry = {
      type: row.type,
      ...commentOf(row),
      ...flag('default', row.isDefault),
      ...(row.type === 'oidc' ? { autocreate: row.autocreate ? (1 as const) : (0 as const) } : {}),
      ...(oidc && oidc.realm === row.realm
        ? { 'issuer-url': oidc.issuer, 'client-id': oidc.audience, 'username-claim': oidc.userClaim }
        : {}),
    };
    return { ...entry, digest: entryDigest(entry) };
  }
}

async function clearDefault(db: EntityManager): Promise<void> {
  await db.update(RealmRow, { isDefault: true }, { isDefault: false });
}

function commentOf(row: RealmRow): { comment?: string } {
  return row.comment === '' ? {} : { comment: row.comment };
}

function missing(realm: string): ApiError {
  return notFound(`domain '${realm}'`);
}
