import { Injectable } from '@nestjs/common';
import type { GuestType } from '@corral/protocol';
import { DataSource, In, IsNull, Not, type EntityManager } from 'typeorm';
import { recordEvent } from '../../events/record-event.js';
import { GuestRow, type GuestLocking } from './guest.entity.js';
import { VmidReservationRow } from './vmid-reservation.entity.js';

/** The channel that carries the vmid of each changed guest to every replica's view. */
export const GUESTS_CHANNEL = 'corral_guests';

/** PVE's default id range (datacenter.cfg `next-id`). */
export const VMID_RANGE = { lower: 100, upper: 1_000_000 } as const;
/** How long a vmid handed out by `/cluster/nextid` is kept from other callers. */
const RESERVATION_S = 60;
const NEXTID_LOCK = 0x6e786964; // "nxid"

/** The guests table; every write notifies the replicas' guest views. */
@Injectable()
export class GuestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  get(vmid: number, db: EntityManager = this.dataSource.manager): Promise<GuestRow | null> {
    return db.findOneBy(GuestRow, { vmid });
  }

  /** The rows of those of `vmids` that exist. */
  some(vmids: readonly number[]): Promise<GuestRow[]> {
    return this.dataSource.manager.findBy(GuestRow, { vmid: In([...vmids]) });
  }

  all(): Promise<GuestRow[]> {
    return this.dataSource.manager.find(GuestRow, { order: { vmid: 'ASC' } });
  }

  /**
   * Inserts a new guest (locked by the task that makes it, when it has a lock), in `db`'s
   * transaction when given (the one that writes that task's row); a taken vmid is a unique
   * violation (the caller turns it into a 409).
   */
  async insert(
    guest: { vmid: number; type: GuestType; node: string; config: Record<string, string> } & GuestLocking,
    db?: EntityManager,
  ): Promise<void> {
    if (db === undefined) return this.dataSource.transaction((own) => this.insert(guest, own));
    await db.insert(GuestRow, { lockTask: null, ...guest, status: 'stopped' });
    await db.delete(VmidReservationRow, { vmid: guest.vmid });
    await notify(db, guest.vmid);
  }

  /** The locked guests, of `node` when given. */
  locked(node?: string): Promise<GuestRow[]> {
    return this.dataSource.manager.findBy(GuestRow, { lock: Not(IsNull()), ...(node !== undefined ? { node } : {}) });
  }

  /** The guests whose lock `upid` holds. */
  lockedBy(upid: string): Promise<GuestRow[]> {
    return this.dataSource.manager.findBy(GuestRow, { lockTask: upid });
  }

  /**
   * Changes a guest in one transaction with the row locked: `change` gets the current row and
   * returns the fields to write (or throws, and nothing is written). A lock is written with the
   * task that holds it; an unlock clears both. Events written by `change` through the manager
   * commit with it.
   */
  async update(vmid: number, change: (row: GuestRow, db: EntityManager) => Promise<GuestChange>): Promise<GuestRow> {
    return this.dataSource.transaction(async (db) => {
      const row = await db.findOne(GuestRow, { where: { vmid }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new Error(`guest ${vmid} vanished`);
      const changed = await change(row, db);
      const fields = changed.lock === null ? { ...changed, lockTask: null } : changed;
      if (Object.keys(fields).length > 0) await db.update(GuestRow, { vmid }, fields);
      await notify(db, vmid);
      return Object.assign(row, fields);
    });
  }

  /** Writes the run state of a guest of `node` within the caller's transaction (a start or stop event's). */
  async setStatus(db: EntityManager, vmid: number, node: string, status: GuestRow['status']): Promise<void> {
    await db.update(GuestRow, { vmid, node }, { status });
    await notify(db, vmid);
  }

  /**
   * Removes a guest, with `event` (vm-delete) when given, in one transaction; with `lockTask`, only
   * while the guest is still locked by that task (null: by none). Resolves with whether it was removed.
   */
  async remove(vmid: number, options: { event?: { event: 'vm-delete'; node: string }; lockTask?: string | null } = {}): Promise<boolean> {
    const { event, lockTask } = options;
    return this.dataSource.transaction(async (db) => {
      const held = lockTask === undefined ? {} : { lock: Not(IsNull()), lockTask: lockTask ?? IsNull() };
      const { affected } = await db.delete(GuestRow, { vmid, ...held });
      if (affected === 0) return false;
      if (event) await recordEvent(db, { ...event, vmid });
      await notify(db, vmid);
      return true;
    });
  }

  /**
   * The lowest free vmid in PVE's range, kept from other nextid callers for a minute. Callers take
   * turns (an advisory lock), so parallel callers get different ids.
   */
  async reserveNextId(): Promise<number | null> {
    return this.dataSource.transaction(async (db) => {
      await db.query('SELECT pg_advisory_xact_lock($1)', [NEXTID_LOCK]);
      await db.query('DELETE FROM "vmid_reservations" WHERE "expires" < now()');
      // The lowest id that is free: the range's start, or one above a taken id.
      const [free] = (await db.query(
        `SELECT min(candidate) AS candidate FROM (
           SELECT $1::integer AS candidate UNION ALL SELECT "vmid" + 1 FROM "guests" UNION ALL SELECT "vmid" + 1 FROM "vmid_reservations"
         ) AS candidates
         WHERE candidate < $2
           AND NOT EXISTS (SELECT 1 FROM "guests" WHERE "vmid" = candidate)
           AND NOT EXISTS (SELECT 1 FROM "vmid_reservations" WHERE "vmid" = candidate)`,
        [VMID_RANGE.lower, VMID_RANGE.upper],
      )) as { candidate: number | null }[];
      if (!free || free.candidate === null) return null;
      await db.insert(VmidReservationRow, { vmid: free.candidate, expires: new Date(Date.now() + RESERVATION_S * 1000) });
      return free.candidate;
    });
  }
}

/** The fields a change of a guest may write: a lock only with the task that holds it. */
export type GuestChange = Partial<Pick<GuestRow, 'config' | 'status' | 'node'>> & ({ readonly lock?: null } | GuestLocking);

async function notify(db: EntityManager, vmid: number): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [GUESTS_CHANNEL, String(vmid)]);
}
