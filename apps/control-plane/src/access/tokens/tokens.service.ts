import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { alreadyExists, badParam, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import { sha256 } from '../auth/authenticator.js';
import { AccessState } from '../state/access-state.js';
import { fullTokenid } from '../full-tokenid.js';
import type { CreatedToken, TokenInfo, TokenListEntry, UpdatedToken } from './tokens.endpoints.js';
import { TokensRepository, type TokenFields, type TokenOwner, type TokenSettings } from './tokens.repository.js';

export interface TokenOptions {
  readonly comment?: string;
  /** Epoch seconds, 0 = never; by default the user's own expiry (PVE: "same as user"). */
  readonly expire?: number;
  /** Separate privileges; true by default. */
  readonly privsep?: boolean;
}

export interface TokenChanges {
  /** null clears it. */
  readonly comment?: string | null;
  readonly expire?: number;
  readonly privsep?: boolean;
  /** A new secret: returned once, and the old one stops working. */
  readonly regenerate?: boolean;
}

/**
 * A user's API tokens. The secret is a random UUID, shown once and kept
 * only as its SHA-256. Every change goes through AccessState.write, so every replica's next request
 * sees it: a regenerated or deleted secret is refused at once.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly state: AccessState,
    private readonly repository: TokensRepository,
  ) {}

  async list(userid: string): Promise<TokenListEntry[]> {
    existing(await this.repository.owner(userid), userid);
    return (await this.repository.tokensOf(userid)).map((token) => ({ tokenid: token.tokenid, ...infoOf(token) }));
  }

  async get(userid: string, tokenid: string): Promise<TokenInfo> {
    existing(await this.repository.owner(userid), userid);
    return infoOf(found(await this.repository.token(userid, tokenid), userid, tokenid));
  }

  async create(userid: string, tokenid: string, options: TokenOptions = {}): Promise<CreatedToken> {
    const secret = randomUUID();
    try {
      const token = await this.state.write(async (db) => {
        const owner = existing(await this.repository.lockOwner(db, userid), userid);
        const expire = options.expire ?? owner.expire;
        checkExpire(owner, expire);
        // PVE keeps no empty comment.
        const row: TokenFields = {
          userid,
          tokenid,
          privsep: options.privsep ?? true,
          expire,
          comment: options.comment || null,
          secretHash: sha256(secret),
        };
        await this.repository.insert(db, row);
        return row;
      });
      return { 'full-tokenid': fullTokenid(userid, tokenid), info: infoOf(token), value: secret };
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`token '${fullTokenid(userid, tokenid)}'`);
      throw error;
    }
  }

  async update(userid: string, tokenid: string, changes: TokenChanges): Promise<UpdatedToken> {
    const secret = changes.regenerate ? randomUUID() : undefined;
    const token = await this.state.write(async (db) => {
      const owner = existing(await this.repository.lockOwner(db, userid), userid);
      const current = found(await this.repository.lockToken(db, userid, tokenid), userid, tokenid);
      if (changes.expire !== undefined) checkExpire(owner, changes.expire);
      const settings: TokenSettings = {
        ...(changes.privsep !== undefined ? { privsep: changes.privsep } : {}),
        ...(changes.expire !== undefined ? { expire: changes.expire } : {}),
        ...(changes.comment !== undefined ? { comment: changes.comment || null } : {}),
        ...(secret !== undefined ? { secretHash: sha256(secret) } : {}),
      };
      await this.repository.update(db, current, settings);
      return { ...current, ...settings };
    });
    return { ...infoOf(token), ...(secret !== undefined ? { 'full-tokenid': fullTokenid(userid, tokenid), value: secret } : {}) };
  }

  /** Deletes the token and its ACL entries together. */
  async remove(userid: string, tokenid: string): Promise<void> {
    await this.state.write(async (db) => {
      existing(await this.repository.lockOwner(db, userid), userid);
      await this.repository.remove(db, found(await this.repository.lockToken(db, userid, tokenid), userid, tokenid));
    });
  }
}

function infoOf(token: Pick<TokenFields, 'privsep' | 'expire' | 'comment'>): TokenInfo {
  return { privsep: token.privsep ? 1 : 0, expire: token.expire, ...(token.comment !== null ? { comment: token.comment } : {}) };
}

function existing(owner: TokenOwner | null, userid: string): TokenOwner {
  if (!owner) throw notFound(`user '${userid}'`);
  return owner;
}

function found<T>(token: T | null, userid: string, tokenid: string): T {
  if (!token) throw notFound(`token '${fullTokenid(userid, tokenid)}'`);
  return token;
}

/** A token cannot outlive its user: when the user expires, the token expires no later (0, never, is later). */
function checkExpire(owner: TokenOwner, expire: number): void {
  if (owner.expire !== 0 && (expire === 0 || expire > owner.expire)) {
    throw badParam('expire', `parameter 'expire': a token cannot outlive its user, and '${owner.userid}' expires at ${owner.expire}`);
  }
}
