import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TicketKeyRow } from '../entities/ticket-key.entity.js';
import { CLOCK_SKEW_S, type SigningKey } from './tickets.js';

/** A new signing key every 24 h; the previous one still verifies the tickets it signed. */
export const KEY_ROTATION_S = 24 * 3600;
const KEYS_KEPT = 2;
// Any constant; the same for every replica.
const ROTATION_LOCK = 0x7469636b; // "tick"
/** How long another replica's rotation may go unseen here: verification also reloads on a miss. */
const REFRESH_MS = 60_000;
const RELOAD_ON_MISS_MS = 100;

/**
 * Ticket signing keys, kept in PostgreSQL so that every control-plane replica signs and verifies
 * with the same ones. Signing reads the newest key and rotates it when it is older than a day;
 * verification uses the keys cached in memory, reloading them now and then and after a miss.
 */
@Injectable()
export class TicketKeys {
  private cache: { keys: SigningKey[]; loadedAt: number } | null = null;
  private lastMissReload = 0;

  constructor(private readonly dataSource: DataSource) {}

  /** The key to sign with now, rotating first if the newest is older than a day. */
  async signingKey(): Promise<SigningKey> {
    const newest = await this.dataSource.manager.findOne(TicketKeyRow, { where: {}, order: { id: 'DESC' } });
    if (newest && !stale(newest)) return toKey(newest);
    const key = await this.dataSource.transaction(async (db) => {
      await db.query('SELECT pg_advisory_xact_lock($1)', [ROTATION_LOCK]);
      // Another replica may have rotated while this one waited for the lock.
      const latest = await db.findOne(TicketKeyRow, { where: {}, order: { id: 'DESC' } });
      if (latest && !stale(latest)) return latest;
      const created = await db.save(TicketKeyRow, db.create(TicketKeyRow, { secret: randomBytes(32) }));
      await db.query('DELETE FROM ticket_keys WHERE id NOT IN (SELECT id FROM ticket_keys ORDER BY id DESC LIMIT $1)', [KEYS_KEPT]);
      return created;
    });
    this.cache = null;
    return toKey(key);
  }

  /** The keys that still verify tickets: the current one and the previous one. */
  async verificationKeys(): Promise<readonly SigningKey[]> {
    if (this.cache && Date.now() - this.cache.loadedAt <= REFRESH_MS) return this.cache.keys;
    return this.reload();
  }

  /**
   * After a signature did not verify: reload, in case another replica rotated, but only for a
   * ticket issued after the keys were last loaded (an older one cannot be from a newer key), and
   * at most every 100 ms. Whether anything changed.
   */
  async reloadAfterMiss(issuedS: number): Promise<boolean> {
    const loadedAt = this.cache?.loadedAt ?? 0;
    if (issuedS * 1000 < loadedAt - CLOCK_SKEW_S * 1000 || Date.now() - this.lastMissReload < RELOAD_ON_MISS_MS) return false;
    this.lastMissReload = Date.now();
    const before = this.cache?.keys.map((k) => k.id).join(',');
    const keys = await this.reload();
    return keys.map((k) => k.id).join(',') !== before;
  }

  private async reload(): Promise<SigningKey[]> {
    const rows = await this.dataSource.manager.find(TicketKeyRow, { order: { id: 'DESC' }, take: KEYS_KEPT });
    const keys = rows.map(toKey);
    this.cache = { keys, loadedAt: Date.now() };
    return keys;
  }
}

function stale(row: TicketKeyRow): boolean {
  return Date.now() - row.createdAt.getTime() >= KEY_ROTATION_S * 1000;
}

function toKey(row: TicketKeyRow): SigningKey {
  return { id: row.id, secret: row.secret };
}
