import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../access/auth/authenticator.js';
import { badParam, notFound } from '../../errors/resource-errors.js';
import { TLS_FINGERPRINT } from '../../tls/certificate.js';
import type { JoinTokenRow } from './join-token.entity.js';
import type { CreatedJoinToken, JoinTokenInfo } from './join-tokens.endpoints.js';
import { JoinTokensRepository } from './join-tokens.repository.js';

const DEFAULT_TTL_S = 900;

export interface JoinTokenOptions {
  readonly ttl?: number;
  readonly node?: string;
  readonly replace?: boolean;
  readonly comment?: string;
}

const nowS = () => Math.floor(Date.now() / 1000);

/**
 * Join tokens: `<id>.<secret>`, the id public (lists, revocation), the secret 256 random bits kept
 * only as its SHA-256. A token is used once (`JoinService`), and expires after `ttl` seconds.
 */
@Injectable()
export class JoinTokensService {
  constructor(
    private readonly repository: JoinTokensRepository,
    @Inject(TLS_FINGERPRINT) private readonly fingerprint: string,
  ) {}

  async list(): Promise<JoinTokenInfo[]> {
    return (await this.repository.pending(nowS())).map(infoOf);
  }

  async create(options: JoinTokenOptions, createdBy: string): Promise<CreatedJoinToken> {
    if (options.replace && options.node === undefined) throw badParam('replace', 'needs node: the consent names the node it replaces');
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const now = nowS();
    const row = {
      id,
      secretHash: sha256(secret),
      expire: now + (options.ttl ?? DEFAULT_TTL_S),
      node: options.node ?? null,
      replace: options.replace ?? false,
      comment: options.comment || null,
      createdBy,
    };
    await this.repository.insert(row, now);
    return { ...infoOf(row), token: `${id}.${secret}`, fingerprint: this.fingerprint };
  }

  async remove(id: string): Promise<void> {
    if (!(await this.repository.remove(id))) throw notFound(`join token '${id}'`);
  }
}

function infoOf(token: Pick<JoinTokenRow, 'id' | 'expire' | 'node' | 'replace' | 'comment'>): JoinTokenInfo {
  return {
    id: token.id,
    expire: token.expire,
    ...(token.node !== null ? { node: token.node } : {}),
    replace: token.replace ? 1 : 0,
    ...(token.comment !== null ? { comment: token.comment } : {}),
  };
}
