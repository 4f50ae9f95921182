import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import { permissionDenied } from '../access/auth/authorizer.js';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { alreadyExists, isUniqueViolation } from '../errors/resource-errors.js';
import { recordEvent } from '../events/record-event.js';
import { PoolMembers } from '../inventory/pools/pool-members.js';
import type { GuestKind } from './guest-kinds.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { GuestTasks, type GuestOperation } from './guest-tasks.js';

/** What locks a guest while it is made: its create, clone or restore. */
export type MakingLock = 'create' | 'clone';

/**
 * The two ends of making a guest (a create, clone or restore): its row goes in locked by the task
 * that makes it, in the transaction that writes the task's row, and the task's work either unlocks
 * it with its `vm-create` event or removes it, so nothing is half made. A task that ends without
 * doing either (its replica gone) leaves a stale lock, which `StaleLocks` reconciles.
 */
@Injectable()
export class NewGuests {
  constructor(
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
    private readonly poolMembers: PoolMembers,
    private readonly access: AccessState,
    private readonly tasks: GuestTasks,
  ) {}

  /** Each storage that new volumes go to must allow the caller `Datastore.AllocateSpace`. */
  async mayAllocate(storages: ReadonlySet<string>, caller: Principal): Promise<void> {
    const access = await this.access.current();
    for (const storage of storages) {
      if (!allows(access, caller.subject, `/storage/${storage}`, ['Datastore.AllocateSpace']))
        throw permissionDenied({ path: `/storage/${storage}`, privileges: ['Datastore.AllocateSpace'] });
    }
  }

  /**
   * Starts `operation`, the task that makes `guest`: the guest's row, locked by that task (and into
   * `pool` when given), is written in the transaction of the task's row, so neither is written
   * without the other. An unknown pool is a 404 and a vmid taken anywhere in the cluster a 409,
   * with neither written. Resolves with the UPID.
   */
  async submit(
    kind: GuestKind,
    guest: { vmid: number; node: string; config: Record<string, string>; lock: MakingLock },
    pool: string | undefined,
    operation: GuestOperation,
  ): Promise<string> {
    let upid: string;
    try {
      upid = await this.tasks.submit({
        ...operation,
        alongside: async (db, task) => {
          await this.repository.insert({ ...guest, type: kind.type, lockTask: task }, db);
          if (pool !== undefined) await this.poolMembers.add(db, pool, guest.vmid);
        },
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const other = await this.repository.get(guest.vmid);
      throw alreadyExists(`${other?.type === 'lxc' ? 'CT' : 'VM'} ${guest.vmid}`, other ? `it is on node '${other.node}'` : undefined);
    }
    await this.view.reload(guest.vmid);
    return upid;
  }

  /** Runs the agent's part of making a new guest: on success the lock goes with its `vm-create` event, on failure the guest goes. */
  async finish(kind: GuestKind, node: string, vmid: number, make: () => Promise<void>): Promise<void> {
    try {
      await make();
    } catch (error) {
      await this.repository.remove(vmid);
      await this.view.reload(vmid);
      throw error;
    }
    await this.repository.update(vmid, async (_row, db) => {
      await recordEvent(db, { event: 'vm-create', node, vmid, details: { type: kind.type } });
      return { lock: null };
    });
    await this.view.reload(vmid);
  }
}
