import { allows } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { denial, permissionDenied } from '../access/auth/authorizer.js';
import type { Principal } from '../http/principal.js';
import type { AccessSnapshot } from '../access/state/access-snapshot.js';
import { AccessState } from '../access/state/access-state.js';
import { ResourcesService } from '../cluster/resources/resources.service.js';
import { ApiError } from '../errors/api-error.js';
import { alreadyExists, badParam, isForeignKeyViolation, isUniqueViolation, notFound } from '../errors/resource-errors.js';
import { LXC, QEMU } from '../guests/guest-kinds.js';
import type { ResultOf } from '../http/endpoint.js';
import { addGuest } from '../inventory/pools/pool-members.js';
import type { PoolEndpoints } from './pools.endpoints.js';
import {
  deletePool,
  dropGuests,
  dropStorages,
  existingStorages,
  guestMemberships,
  insertPool,
  lockPool,
  moveGuest,
  putStorages,
  readPools,
  setComment,
  type StoredPool,
} from './pools.repository.js';

export type MemberType = 'qemu' | 'lxc' | 'storage';

/** A change of a pool (PVE's `PUT /pools/{poolid}`). */
export interface PoolChange {
  readonly comment?: string | undefined;
  readonly vms?: readonly number[] | undefined;
  readonly storage?: readonly string[] | undefined;
  /** Remove the guests and storages given instead of adding them. */
  readonly delete?: boolean | undefined;
  readonly 'allow-move'?: boolean | undefined;
}

/**
 * Resource pools (docs/pools.md). Every write is one `AccessState.write`,
 * as PVE changes pools under the user.cfg lock: all of it or nothing, and every replica's access
 * snapshot learns the new membership, which changes what ACL entries on `/pool/<poolid>` grant.
 */
@Injectable()
export class PoolsService {
  constructor(
    private readonly state: AccessState,
    private readonly dataSource: DataSource,
    private readonly resources: ResourcesService,
  ) {}

  /** The pools the caller may audit; with `poolid`, that one with its members (PVE 9's `GET /pools?poolid=`). */
  async list(
    caller: Principal,
    query: { readonly poolid?: string | undefined; readonly type?: MemberType | undefined },
  ): Promise<ResultOf<PoolEndpoints['list']>> {
    if (query.type !== undefined && query.poolid === undefined) throw badParam('type', "parameter 'type': only together with 'poolid'");
    const access = await this.state.current();
    const pools = await readPools(this.dataSource.manager, query.poolid);
    if (query.poolid !== undefined && pools.length === 0) throw notFound(`pool '${query.poolid}'`);
    const visible = pools.filter((pool) => allows(access, caller.subject, `/pool/${pool.poolid}`, ['Pool.Audit']));
    return Promise.all(
      visible.map(async (pool) => ({
        poolid: pool.poolid,
        ...commentOf(pool.comment),
        ...(query.poolid !== undefined ? { members: await this.members(pool, query.type) } : {}),
      })),
    );
  }

  async get(poolid: string, type: MemberType | undefined): Promise<ResultOf<PoolEndpoints['get']>> {
    const [pool] = await readPools(this.dataSource.manager, poolid);
    if (!pool) throw notFound(`pool '${poolid}'`);
    return { ...commentOf(pool.comment), members: await this.members(pool, type) };
  }

  async create(poolid: string, comment: string | undefined): Promise<void> {
    try {
      await this.state.write((db) => insertPool(db, { poolid, comment: comment || null }));
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`pool '${poolid}'`);
      throw error;
    }
  }

  /**
   * Changes the comment and adds (or with `delete`, removes) guests and storages, as PVE: each
   * member needs the right to change its permissions, a guest in another pool moves only with
   * `allow-move` and the same right on that pool. `vmParam` names the guests' parameter in errors.
   */
  async update(caller: Principal, poolid: string, change: PoolChange, vmParam = 'vms'): Promise<void> {
    const access = await this.state.current();
    const vms = [...new Set(change.vms ?? [])];
    const storages = [...new Set(change.storage ?? [])];
    for (const vmid of vms) mayModify(access, caller, `/vms/${vmid}`);
    for (const storage of storages) mayModify(access, caller, `/storage/${storage}`);
    await this.state.write(async (db) => {
      if (!(await lockPool(db, poolid))) throw notFound(`pool '${poolid}'`);
      if (change.comment !== undefined) await setComment(db, poolid, change.comment || null);
      if (change.delete) {
        await removeMembers(db, poolid, { vms, storages, vmParam });
      } else {
        await this.addGuests(db, access, caller, poolid, vms, change['allow-move'] ?? false);
        await addStorages(db, poolid, storages);
      }
    });
  }

  /** Deletes an empty pool with the ACL entries on it (409 while it has members). */
  async remove(poolid: string): Promise<void> {
    try {
      await this.state.write(async (db) => {
        const [pool] = await readPools(db, poolid);
        if (!pool) throw notFound(`pool '${poolid}'`);
        if (pool.vmids.length > 0 || pool.storages.length > 0) throw notEmpty(pool);
        await deletePool(db, poolid);
      });
    } catch (error) {
      // A guest created into the pool meanwhile.
      if (isForeignKeyViolation(error)) throw notEmpty({ poolid, vmids: [], storages: [] });
      throw error;
    }
  }

  private async members(pool: StoredPool, type: MemberType | undefined): Promise<ResultOf<PoolEndpoints['get']>['members']> {
    const members = await this.resources.members(new Set(pool.vmids), new Set(pool.storages));
    return members.filter((member) => type === undefined || member.type === type);
  }

  private async addGuests(
    db: EntityManager,
    access: AccessSnapshot,
    caller: Principal,
    poolid: string,
    vms: readonly number[],
    allowMove: boolean,
  ): Promise<void> {
    const guests = await guestMemberships(db, vms);
    for (const vmid of vms) {
      const guest = guests.get(vmid);
      if (!guest) throw notFound(`VM ${vmid}`);
      const name = `${(guest.type === 'lxc' ? LXC : QEMU).noun} ${vmid}`;
      // PVE's words, which clients look for.
      if (guest.poolid === poolid) throw new ApiError('ALREADY_EXISTS', `${name} is already a pool member`);
      if (guest.poolid === null) {
        await addGuest(db, poolid, vmid);
        continue;
      }
      if (!allowMove) throw new ApiError('IN_USE', `${name} is already in pool '${guest.poolid}' (allow-move=1 moves it)`);
      mayModify(access, caller, `/pool/${guest.poolid}`);
      await moveGuest(db, poolid, vmid);
    }
  }
}

async function addStorages(db: EntityManager, poolid: string, storages: readonly string[]): Promise<void> {
  if (storages.length === 0) return;
  const existing = await existingStorages(db, storages);
  const missing = storages.find((storage) => !existing.has(storage));
  if (missing !== undefined) throw notFound(`storage '${missing}'`);
  const [pool] = await readPools(db, poolid);
  const member = storages.find((storage) => pool?.storages.includes(storage));
  if (member !== undefined) throw new ApiError('ALREADY_EXISTS', `storage '${member}' is already a pool member`);
  await putStorages(db, poolid, storages);
}

async function removeMembers(
  db: EntityManager,
  poolid: string,
  members: { vms: readonly number[]; storages: readonly string[]; vmParam: string },
): Promise<void> {
  const [pool] = await readPools(db, poolid);
  const guest = members.vms.find((vmid) => !pool?.vmids.includes(vmid));
  if (guest !== undefined) throw badParam(members.vmParam, `guest ${guest} is not a member of pool '${poolid}'`);
  const storage = members.storages.find((s) => !pool?.storages.includes(s));
  if (storage !== undefined) throw badParam('storage', `storage '${storage}' is not a member of pool '${poolid}'`);
  if (members.vms.length > 0) await dropGuests(db, poolid, members.vms);
  if (members.storages.length > 0) await dropStorages(db, poolid, members.storages);
}

/** PVE's `check_perm_modify`: Permissions.Modify on the path, or its kind's allocate privilege. */
function mayModify(access: AccessSnapshot, caller: Principal, path: string): void {
  const denied = denial({ kind: 'permModify', path }, { access, principal: caller, params: {} });
  if (denied) throw permissionDenied(denied);
}

function notEmpty(pool: Pick<StoredPool, 'poolid' | 'vmids' | 'storages'>): ApiError {
  const members = [...pool.vmids.map((vmid) => `guest ${vmid}`), ...pool.storages.map((storage) => `storage '${storage}'`)];
  return new ApiError('IN_USE', `pool '${pool.poolid}' is not empty${members.length > 0 ? ` (it holds ${members.join(', ')})` : ''}`);
}

function commentOf(comment: string | null): { comment?: string } {
  return comment === null ? {} : { comment };
}
