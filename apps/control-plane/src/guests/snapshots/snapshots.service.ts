import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { configDigest } from '@corral/pve-formats';
import { existingGuest } from '../existing-guest.js';
import type { GuestLock } from '../../inventory/guests/guest.entity.js';
import type { GuestKind } from '../guest-kinds.js';
import { guestSpec } from '../guest-spec.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import { GuestView, type GuestState } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { runState } from '../status-entry.js';
import type { GuestSnapshotRow } from './guest-snapshot.entity.js';
import { hasFeature, sharedNodes, type GuestFeature } from './guest-features.js';
import type { SnapshotEntry } from './snapshot.endpoints.js';
import { SnapshotsRepository } from './snapshots.repository.js';

/** A snapshot's data on a large disk, or a VM's memory: the request's own bound. */
const SNAPSHOT_MS = 60 * 60_000;
const STOP_MS = 5 * 60_000;
/** PVE's reserved names: `current` is the guest's state in the list; vzdump takes containers' `vzdump` snapshots. */
const RESERVED: Readonly<Record<GuestKind['type'], readonly string[]>> = { qemu: ['current'], lxc: ['current', 'vzdump'] };
/** The config key that names the current snapshot, as in PVE's config. */
const PARENT = 'parent';

export interface SnapshotRequest {
  readonly node: string;
  readonly vmid: number;
  readonly snapname: string;
}

/**
 * Guest snapshots (docs/guests.md "Snapshots"): the metadata in `guest_snapshots` and the guest's
 * `parent` config key, the data on the guest's node through its agent. Each change is a task on the
 * guest's queue that locks the guest (`snapshot`, `rollback`, `snapshot-delete`, as PVE) while
 * its agent works, and writes the metadata in one transaction with the unlock once the agent is
 * done; a failure only unlocks it.
 */
@Injectable()
export class SnapshotsService {
  constructor(
    private readonly view: GuestView,
    private readonly guests: GuestsRepository,
    private readonly snapshots: SnapshotsRepository,
    private readonly tasks: GuestTasks,
    private readonly storages: StoragesRepository,
    private readonly nodes: NodeView,
  ) {}

  /** PVE's list: every snapshot, then `current` ("You are here!") with the config's digest and parent (and for a VM whether it runs). */
  async list(kind: GuestKind, node: string, vmid: number): Promise<SnapshotEntry[]> {
    const state = existingGuest(this.view, kind, node, vmid);
    const qemu = kind.type === 'qemu';
    const entries = (await this.snapshots.list(vmid)).map((snapshot) => ({
      name: snapshot.name,
      description: snapshot.description,
      snaptime: Math.floor(snapshot.snaptime.getTime() / 1000),
      ...(snapshot.parent !== null ? { parent: snapshot.parent } : {}),
      ...(qemu ? { vmstate: flag(snapshot.vmstate) } : {}),
    }));
    const { config } = state.row;
    const current = {
      name: 'current',
      description: 'You are here!',
      digest: configDigest(config),
      ...(config[PARENT] !== undefined ? { parent: config[PARENT] } : {}),
      ...(qemu ? { running: flag(runState(state) !== 'stopped') } : {}),
    };
    return [...entries, current];
  }

  async create(
    kind: GuestKind,
    request: SnapshotRequest & { description?: string; vmstate?: boolean },
    caller: Principal,
  ): Promise<string> {
    const { node, vmid, snapname } = request;
    if (RESERVED[kind.type].includes(snapname)) throw badParam('snapname', `unable to use snapshot name '${snapname}' (reserved name)`);
    existingGuest(this.view, kind, node, vmid);
    const storages = await this.storageMap();
    await this.refuseUsed(vmid, snapname);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.snapshot ?? 'snapshot',
      caller,
      check: () => this.maySnapshot(kind, node, vmid, storages),
      work: async (work) => {
        await this.refuseUsed(vmid, snapname);
        const running = runState(existingGuest(this.view, kind, node, vmid)) !== 'stopped';
        const vmstate = kind.type === 'qemu' && request.vmstate === true && running;
        if (request.vmstate === true && !vmstate) work.line(`${kind.noun} ${vmid} is not running: the snapshot holds its disks only`);
        await this.locked(kind, vmid, 'snapshot', work.upid, async (row) => {
          await work.agent('guest.snapshot.create', { guest: guestSpec(row, storages), snapname, vmstate }, SNAPSHOT_MS);
          return async (db, config) => {
            const { [PARENT]: parent, ...taken } = config;
            await this.snapshots.insert(db, {
              vmid,
              name: snapname,
              parent: parent ?? null,
              description: request.description ?? '',
              snaptime: new Date(),
              vmstate,
              config: taken,
            });
            return { ...config, [PARENT]: snapname };
          };
        });
      },
    });
  }

  /** Stops a running guest, returns its volumes to the snapshot, and makes the snapshot's config the guest's, with it as `parent`. */
  rollback(kind: GuestKind, request: SnapshotRequest & { start?: boolean }, caller: Principal): Promise<string> {
    const { node, vmid, snapname } = request;
    return this.onSnapshot(kind, request, 'rollback', caller, async (snapshot, storages, work) => {
      const config = { ...snapshot.config, [PARENT]: snapname };
      await this.locked(kind, vmid, 'rollback', work.upid, async (row) => {
        if (runState(existingGuest(this.view, kind, node, vmid)) !== 'stopped')
          await work.agent('guest.stop', { type: kind.type, vmid }, STOP_MS);
        const vmstate = kind.type === 'qemu' && snapshot.vmstate;
        await work.agent(
          'guest.snapshot.rollback',
          { guest: guestSpec({ ...row, config }, storages), snapname, vmstate, start: request.start === true },
          SNAPSHOT_MS,
        );
        return async () => config;
      });
    });
  }

  /** Removes the snapshot's data and metadata; with `force`, the metadata even when the agent could not remove the data. */
  destroy(kind: GuestKind, request: SnapshotRequest & { force?: boolean }, caller: Principal): Promise<string> {
    const { vmid, snapname } = request;
    return this.onSnapshot(kind, request, 'delsnapshot', caller, async (snapshot, storages, work) => {
      await this.locked(kind, vmid, 'snapshot-delete', work.upid, async (row) => {
        try {
          await work.agent('guest.snapshot.delete', { guest: guestSpec(row, storages), snapname }, SNAPSHOT_MS);
        } catch (error) {
          if (request.force !== true) throw error;
          work.line(
            `could not remove the data of snapshot '${snapname}' (${(error as Error).message}); removing it from the config (force)`,
          );
        }
        return async (db, config) => {
          await this.snapshots.remove(db, snapshot);
          const { [PARENT]: parent, ...rest } = config;
          if (parent !== snapname) return config;
          return snapshot.parent === null ? rest : { ...rest, [PARENT]: snapshot.parent };
        };
      });
    });
  }

  /** A task on an existing snapshot (404 before the task when there is none), which `run` gets read again in the guest's turn. */
  private async onSnapshot(
    kind: GuestKind,
    request: SnapshotRequest,
    action: 'rollback' | 'delsnapshot',
    caller: Principal,
    run: (snapshot: GuestSnapshotRow, storages: ReadonlyMap<string, StorageRow>, work: GuestWork) => Promise<void>,
  ): Promise<string> {
    const { node, vmid, snapname } = request;
    existingGuest(this.view, kind, node, vmid);
    await this.snapshot(kind, vmid, snapname);
    const storages = await this.storageMap();
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks[action] ?? action,
      caller,
      check: () => this.unlocked(kind, node, vmid),
      work: async (work) => run(await this.snapshot(kind, vmid, snapname), storages, work),
    });
  }

  /** PVE's index of a snapshot: what can be done with it. */
  async index(kind: GuestKind, request: SnapshotRequest): Promise<{ cmd: string }[]> {
    existingGuest(this.view, kind, request.node, request.vmid);
    await this.snapshot(kind, request.vmid, request.snapname);
    return [{ cmd: 'rollback' }, { cmd: 'config' }];
  }

  /** The snapshot's section as PVE's config holds it: the guest's keys then, its parent, `snaptime` and description. */
  async config(kind: GuestKind, request: SnapshotRequest): Promise<Record<string, string | number>> {
    existingGuest(this.view, kind, request.node, request.vmid);
    const snapshot = await this.snapshot(kind, request.vmid, request.snapname);
    return {
      ...snapshot.config,
      ...(snapshot.parent !== null ? { [PARENT]: snapshot.parent } : {}),
      ...(snapshot.description !== '' ? { description: snapshot.description } : {}),
      snaptime: Math.floor(snapshot.snaptime.getTime() / 1000),
    };
  }

  async setDescription(kind: GuestKind, request: SnapshotRequest & { description?: string }): Promise<null> {
    existingGuest(this.view, kind, request.node, request.vmid);
    await this.snapshot(kind, request.vmid, request.snapname);
    if (request.description !== undefined) await this.snapshots.setDescription(request.vmid, request.snapname, request.description);
    return null;
  }

  /** PVE's feature check, by the guest's volumes; a VM's answer lists the nodes it could run on. */
  async feature(
    kind: GuestKind,
    request: { node: string; vmid: number; feature: GuestFeature; snapname?: string | undefined },
  ): Promise<{ hasFeature: 0 | 1; nodes?: string[] }> {
    const { node, vmid, feature, snapname } = request;
    const state = existingGuest(this.view, kind, node, vmid);
    if (snapname !== undefined) await this.snapshot(kind, vmid, snapname);
    const storages = await this.storageMap();
    const spec = guestSpec(state.row, storages);
    const has = flag(hasFeature(spec, feature, snapname));
    if (kind.type === 'lxc') return { hasFeature: has };
    return {
      hasFeature: has,
      nodes: sharedNodes(
        spec,
        node,
        this.nodes.list().map((each) => each.name),
        storages,
      ),
    };
  }

  /**
   * Runs `work` with the guest locked `lock` by the task `upid`; `work` answers with the metadata change to make once
   * its agent is done, which is written with the new config and the unlock in one transaction.
   * When `work` fails, the guest is only unlocked.
   */
  private async locked(
    kind: GuestKind,
    vmid: number,
    lock: GuestLock,
    upid: string,
    work: (row: GuestState['row']) => Promise<MetadataChange>,
  ): Promise<void> {
    const row = await this.guests.update(vmid, async (current) => {
      if (current.lock !== null) throw lockedError(kind, vmid, current.lock);
      return { lock, lockTask: upid };
    });
    await this.view.reload(vmid);
    try {
      const change = await work(row);
      await this.guests.update(vmid, async (current, db) => ({ config: await change(db, current.config), lock: null }));
    } finally {
      await this.guests.update(vmid, async (current) => (current.lockTask === upid ? { lock: null } : {}));
      await this.view.reload(vmid);
    }
  }

  /** The state rule of a snapshot: an unlocked guest whose volumes can all snapshot (PVE's words otherwise). */
  private maySnapshot(kind: GuestKind, node: string, vmid: number, storages: ReadonlyMap<string, StorageRow>): void {
    const state = this.unlocked(kind, node, vmid);
    if (!hasFeature(guestSpec(state.row, storages), 'snapshot')) throw new ApiError('GUEST_STATE', 'snapshot feature is not available');
  }

  private unlocked(kind: GuestKind, node: string, vmid: number): GuestState {
    const state = existingGuest(this.view, kind, node, vmid);
    if (state.row.lock !== null) throw lockedError(kind, vmid, state.row.lock);
    return state;
  }

  private async refuseUsed(vmid: number, snapname: string): Promise<void> {
    if ((await this.snapshots.get(vmid, snapname)) !== null)
      throw new ApiError('ALREADY_EXISTS', `snapshot name '${snapname}' already used`);
  }

  /** The snapshot, or 404 in PVE's words. */
  private async snapshot(kind: GuestKind, vmid: number, snapname: string): Promise<GuestSnapshotRow> {
    const snapshot = await this.snapshots.get(vmid, snapname);
    if (snapshot === null) throw new ApiError('NOT_FOUND', `snapshot '${snapname}' of ${kind.noun} ${vmid} does not exist`);
    return snapshot;
  }

  private async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }
}

/** What a snapshot operation writes once its agent is done: given the transaction and the guest's config, it answers the new config. */
type MetadataChange = (
  db: Parameters<Parameters<GuestsRepository['update']>[1]>[1],
  config: Record<string, string>,
) => Promise<Record<string, string>>;

function lockedError(kind: GuestKind, vmid: number, lock: string): ApiError {
  return new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${lock})`);
}

function flag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}
