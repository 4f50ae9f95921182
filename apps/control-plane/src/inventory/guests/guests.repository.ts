import { Injectable } from '@nestjs/common';
import type { GuestType } from '@corral/protocol';
import { DataSource, In, type EntityManager } from 'typeorm';
import { recordEvent } from '../../events/record-event.js';
import { GuestRow, type GuestLock } from './guest.entity.js';
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

  /** Inserts a new guest (locked for `lock` while it is made), with what `alongside` writes in the same transaction; a taken vmid is a unique violation (the caller turns it into a 409). */
  async insert(
    guest: { vmid: number; type: GuestType; node: string; config: Record<string, string>; lock: GuestLock | null },
    alongside?: (db: EntityManager) => Promise<void>,
  ): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      await db.insert(GuestRow, { ...guest, status: 'stopped' });
      await alongside?.(db);
      await db.delete(VmidReservationRow, { vmid: guest.vmid });
      await notify(db, guest.vmid);
    });
  }

  /**
   * Changes a guest in one transaction with the row locked: `change` gets the current row and
   * returns the fields to write (or throws, and nothing is written). Events written by `change`
   * through the manager commit with it.
   */
  async update(
    vmid: number,
    change: (row: GuestRow, db: EntityManager) => Promise<Partial<Pick<GuestRow, 'config' | 'lock' | 'status' | 'node'>>>,
  ): Promise<GuestRow> {
    return this.dataSource.transaction(async (db) => {
      const row = await db.findOne(GuestRow, { where: { vmid }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new Error(`guest ${vmid} vanished`);
      const fields = await change(row, db);
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

  /** Removes a guest, with `event` (vm-delete) when given, in one transaction. */
  async remove(vmid: number, event?: { event: 'vm-delete'; node: string }): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      await db.delete(GuestRow, { vmid });
      if (event) await recordEvent(db, { ...event, vmid });
      await notify(db, vmid);
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

async function notify(db: EntityManager, vmid: number): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [GUESTS_CHANNEL, String(vmid)]);
}
