import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { authenticationFailed, sameHex, sha256 } from '../../access/auth/authenticator.js';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, isUniqueViolation } from '../../errors/resource-errors.js';
import { recordEvent } from '../../events/record-event.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { NodesRepository } from '../../inventory/nodes/nodes.repository.js';
import { ReplicaDirectory } from '../../replicas/replica-directory.js';
import { JoinTokensRepository } from '../join-tokens/join-tokens.repository.js';

const TOKEN = /^([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;
const REFUSED = 'the join token is invalid, expired or already used';

export interface JoinedNode {
  readonly node: string;
  readonly credential: string;
  /** Where the replicas are reached. */
  readonly urls: string[];
}

/**
 * The join: one transaction takes the token out of the table, writes
 * the node with the hash of a fresh credential and records `cluster-join`. Any failure rolls all of
 * it back, so a refused join leaves the token usable and no node half joined.
 */
@Injectable()
export class JoinService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: JoinTokensRepository,
    private readonly nodes: NodesRepository,
    private readonly view: NodeView,
    private readonly directory: ReplicaDirectory,
  ) {}

  async join(token: string, node: string): Promise<JoinedNode> {
    const [, id = '', secret = ''] = TOKEN.exec(token) ?? [];
    if (id === '') throw authenticationFailed(REFUSED);
    const credential = randomBytes(32).toString('base64url');
    try {
      await this.dataSource.transaction(async (db) => {
        const found = await this.tokens.take(db, id);
        if (!found || !sameHex(found.secretHash, sha256(secret)) || found.expire <= Date.now() / 1000) throw authenticationFailed(REFUSED);
        if (found.node !== null && found.node !== node) {
          throw new ApiError('PERMISSION_DENIED', 'permission denied', {
            reason: `permission denied - this join token is for node '${found.node}'`,
          });
        }
        const existing = await this.nodes.lock(db, node);
        if (existing && !found.replace) throw nodeExists(node);
        await this.nodes.join(db, node, sha256(credential), existing !== null);
        await recordEvent(db, { event: 'cluster-join', node, details: { token: id, rejoin: existing !== null } });
      });
    } catch (error) {
      // Two joins of one new name with two tokens: the second insert loses.
      if (isUniqueViolation(error)) throw nodeExists(node);
      throw error;
    }
    await this.view.reload(node);
    return { node, credential, urls: await this.directory.urls() };
  }
}

function nodeExists(node: string): ApiError {
  return alreadyExists(`node '${node}'`, `re-joining it needs a join token created with node=${node} and replace=1`);
}
