import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../errors/api-error.js';
import { isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import { PoolGuestRow } from './pool-guest.entity.js';
import { PoolRow } from './pool.entity.js';

/**
 * Puts guests into pools for the guests API: `pool=<poolid>` of a create, a clone or a restore
 * (PVE's `add_vm_to_pool`).
 */
@Injectable()
export class PoolMembers {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Adds an existing guest that is in no pool to `poolid`, in the caller's transaction when `db` is
   * given: 404 when the pool does not exist, 409 when the guest is in a pool already. The
   * membership table's trigger tells every replica's access snapshot at commit.
   */
  async add(db: EntityManager | undefined, poolid: string, vmid: number): Promise<void> {
    const manager = db ?? this.dataSource.manager;
    if (!(await manager.exists(PoolRow, { where: { poolid } }))) throw notFound(`pool '${poolid}'`);
    try {
      await addGuest(manager, poolid, vmid);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError('ALREADY_EXISTS', `guest ${vmid} is already a pool member`);
      throw error;
    }
  }
}

/** Puts a guest that is in no pool into one; one in a pool already is a unique violation. */
export async function addGuest(db: EntityManager, poolid: string, vmid: number): Promise<void> {
  await db.insert(PoolGuestRow, { vmid, poolid });
}
