import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { ApiTokenRow } from '../entities/api-token.entity.js';
import { UserRow } from '../entities/user.entity.js';
import { fullTokenid } from '../full-tokenid.js';

export type TokenOwner = Pick<UserRow, 'userid' | 'expire'>;
export type TokenFields = Pick<ApiTokenRow, 'userid' | 'tokenid' | 'privsep' | 'expire' | 'comment' | 'secretHash'>;
export type TokenSettings = Partial<Pick<TokenFields, 'privsep' | 'expire' | 'comment' | 'secretHash'>>;

/**
 * The api_tokens table. Reads use the data source; changes take the transaction of
 * `AccessState.write` and lock what they check, so a concurrent change cannot slip in between.
 */
@Injectable()
export class TokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  owner(userid: string): Promise<TokenOwner | null> {
    return this.dataSource.manager.findOne(UserRow, { select: { userid: true, expire: true }, where: { userid } });
  }

  tokensOf(userid: string): Promise<ApiTokenRow[]> {
    return this.dataSource.manager.find(ApiTokenRow, { where: { userid }, order: { tokenid: 'ASC' } });
  }

  token(userid: string, tokenid: string): Promise<ApiTokenRow | null> {
    return this.dataSource.manager.findOneBy(ApiTokenRow, { userid, tokenid });
  }

  /** The owner, held (FOR SHARE) until the transaction ends: it cannot be deleted or change its expiry meanwhile. */
  lockOwner(db: EntityManager, userid: string): Promise<TokenOwner | null> {
    return db.findOne(UserRow, { select: { userid: true, expire: true }, where: { userid }, lock: { mode: 'pessimistic_read' } });
  }

  lockToken(db: EntityManager, userid: string, tokenid: string): Promise<ApiTokenRow | null> {
    return db.findOne(ApiTokenRow, { where: { userid, tokenid }, lock: { mode: 'pessimistic_write' } });
  }

  /** Fails with a unique violation when the token exists (a concurrent create won). */
  async insert(db: EntityManager, token: TokenFields): Promise<void> {
    // A copy: TypeORM writes the returned defaults into the object, untransformed (bigint as text).
    await db.insert(ApiTokenRow, { ...token });
  }

  async update(db: EntityManager, token: TokenFields, changes: TokenSettings): Promise<void> {
    if (Object.keys(changes).length > 0) await db.update(ApiTokenRow, { userid: token.userid, tokenid: token.tokenid }, changes);
  }

  /** The token and the ACL entries granted to it. */
  async remove(db: EntityManager, token: TokenFields): Promise<void> {
    await db.delete(AclEntryRow, { type: 'token', ugid: fullTokenid(token.userid, token.tokenid) });
    await db.delete(ApiTokenRow, { userid: token.userid, tokenid: token.tokenid });
  }
}
