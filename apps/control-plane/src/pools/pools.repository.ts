import { In, type EntityManager } from 'typeorm';
import { AclEntryRow } from '../access/entities/acl-entry.entity.js';
import { GuestRow } from '../inventory/guests/guest.entity.js';
import { StorageRow } from '../inventory/storage/storage.entity.js';
import { PoolGuestRow } from '../inventory/pools/pool-guest.entity.js';
import { PoolStorageRow } from '../inventory/pools/pool-storage.entity.js';
import { PoolRow } from '../inventory/pools/pool.entity.js';

/** The pools' tables. Writes take the EntityManager of an `AccessState.write`, or of the guest change they belong to. */

export interface StoredPool {
  readonly poolid: string;
  readonly comment: string | null;
  readonly vmids: readonly number[];
  readonly storages: readonly string[];
}

/** A guest that a pool change names, and the pool it is in. */
export interface GuestMembership {
  readonly vmid: number;
  readonly type: GuestRow['type'];
  readonly poolid: string | null;
}

/** Every pool, or only the one named, with its members, sorted. */
export async function readPools(db: EntityManager, poolid?: string): Promise<StoredPool[]> {
  const where = poolid === undefined ? {} : { poolid };
  // One after the other: in a transaction they share one connection.
  const pools = await db.find(PoolRow, { where, order: { poolid: 'ASC' } });
  const guests = await db.find(PoolGuestRow, { where, order: { vmid: 'ASC' } });
  const storages = await db.find(PoolStorageRow, { where, order: { storage: 'ASC' } });
  return pools.map((pool) => ({
    ...pool,
    vmids: guests.filter((g) => g.poolid === pool.poolid).map((g) => g.vmid),
    storages: storages.filter((s) => s.poolid === pool.poolid).map((s) => s.storage),
  }));
}

export async function insertPool(db: EntityManager, pool: PoolRow): Promise<void> {
  await db.insert(PoolRow, pool);
}

/** Whether the pool exists; its row stays locked until the transaction ends, so that a change of it waits for another. */
export async function lockPool(db: EntityManager, poolid: string): Promise<boolean> {
  return (await db.findOne(PoolRow, { where: { poolid }, lock: { mode: 'pessimistic_write' } })) !== null;
}

export async function setComment(db: EntityManager, poolid: string, comment: string | null): Promise<void> {
  await db.update(PoolRow, { poolid }, { comment });
}

/** The existing guests among `vmids`, each with its pool. */
export async function guestMemberships(db: EntityManager, vmids: readonly number[]): Promise<Map<number, GuestMembership>> {
  const guests = await db.find(GuestRow, { select: { vmid: true, type: true }, where: { vmid: In([...vmids]) } });
  const members = await db.find(PoolGuestRow, { where: { vmid: In([...vmids]) } });
  const pools = new Map(members.map((m) => [m.vmid, m.poolid]));
  return new Map(guests.map((g) => [g.vmid, { vmid: g.vmid, type: g.type, poolid: pools.get(g.vmid) ?? null }]));
}

/** The existing storages among `storages`. */
export async function existingStorages(db: EntityManager, storages: readonly string[]): Promise<Set<string>> {
  const rows = await db.find(StorageRow, { select: { storage: true }, where: { storage: In([...storages]) } });
  return new Set(rows.map((row) => row.storage));
}

/** Moves a guest from the pool it is in to another. */
export async function moveGuest(db: EntityManager, poolid: string, vmid: number): Promise<void> {
  await db.update(PoolGuestRow, { vmid }, { poolid });
}

export async function dropGuests(db: EntityManager, poolid: string, vmids: readonly number[]): Promise<void> {
  await db.delete(PoolGuestRow, { poolid, vmid: In([...vmids]) });
}

export async function putStorages(db: EntityManager, poolid: string, storages: readonly string[]): Promise<void> {
  await db.insert(
    PoolStorageRow,
    storages.map((storage) => ({ poolid, storage })),
  );
}

export async function dropStorages(db: EntityManager, poolid: string, storages: readonly string[]): Promise<void> {
  await db.delete(PoolStorageRow, { poolid, storage: In([...storages]) });
}

/** Deletes a pool and the ACL entries on it (PVE's `delete_pool_acl`); a member left makes it a foreign key violation. */
export async function deletePool(db: EntityManager, poolid: string): Promise<void> {
  await db.delete(AclEntryRow, { path: `/pool/${poolid}` });
  await db.delete(PoolRow, { poolid });
}
