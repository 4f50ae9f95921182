import { Injectable } from '@nestjs/common';
import { DataSource, LessThanOrEqual, MoreThan, type EntityManager } from 'typeorm';
import { JoinTokenRow } from './join-token.entity.js';

export type NewJoinToken = Pick<JoinTokenRow, 'id' | 'secretHash' | 'expire' | 'node' | 'replace' | 'comment' | 'createdBy'>;

/** The join_tokens table. */
@Injectable()
export class JoinTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  pending(now: number): Promise<JoinTokenRow[]> {
    return this.dataSource.manager.find(JoinTokenRow, { where: { expire: MoreThan(now) }, order: { createdAt: 'ASC' } });
  }

  async insert(token: NewJoinToken, now: number): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      // Expired tokens are useless: each create sweeps them.
      await db.delete(JoinTokenRow, { expire: LessThanOrEqual(now) });
      await db.insert(JoinTokenRow, token);
    });
  }

  /** Whether a token was there to delete. */
  async remove(id: string): Promise<boolean> {
    return ((await this.dataSource.manager.delete(JoinTokenRow, { id })).affected ?? 0) > 0;
  }

  /** Takes the token out of the table within `db`'s transaction: whoever commits first used it; a concurrent use finds nothing. */
  async take(db: EntityManager, id: string): Promise<JoinTokenRow | null> {
    const token = await db.findOne(JoinTokenRow, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (token) await db.delete(JoinTokenRow, { id });
    return token;
  }
}
