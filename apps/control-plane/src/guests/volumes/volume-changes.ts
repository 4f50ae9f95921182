import { Injectable } from '@nestjs/common';
import type { GuestVolume } from '@corral/protocol';
import type { Principal } from '../../http/principal.js';
import { ApiError } from '../../errors/api-error.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { mayChangeConfig } from '../config-change.js';
import { GuestTasks, type GuestOperation, type GuestWork } from '../guest-tasks.js';
import type { GuestKind } from '../guest-kinds.js';
import type { GuestRef } from '../guest-ref.js';
import { guestSpec } from '../guest-spec.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import type { GuestRow } from '../../inventory/guests/guest.entity.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { NewGuests } from '../new-guests.js';
import { runState } from '../status-entry.js';
import { planVolumeChange, type ConfigChange, type VolumeChangePlan } from './volume-change.js';

/** Making or removing volumes of a few GiB; a copy of a large one takes long. */
export const VOLUME_MS = 30 * 60_000;

export interface VolumeChangeOptions {
  readonly caller: Principal;
  readonly digest?: string | undefined;
  /** `unlink`'s `force`. */
  readonly force?: boolean;
}

/**
 * Config changes that touch volumes (`PUT`/`POST .../config`, `unlink`): planned at once (a 400 or
 * 409 before anything happens), then run in the guest's queue as a task: new volumes made by the
 * agent, the config written (refused if its volumes changed meanwhile, and then the new volumes
 * are removed again), then the destroyed volumes removed. A change that makes and destroys nothing
 * is written at once, as any other config change.
 */
@Injectable()
export class VolumeChanges {
  constructor(
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly storages: StoragesRepository,
    private readonly newGuests: NewGuests,
  ) {}

  /** PVE's synchronous answer (`PUT .../config`, `unlink`): once the change is done. */
  async now(guest: GuestRef, change: ConfigChange, options: VolumeChangeOptions): Promise<null> {
    const operation = await this.prepare(guest, change, options);
    if (operation !== undefined) await this.tasks.completed(operation);
    return null;
  }

  /** `POST .../config`: the change as a task, answered with its UPID. */
  async asTask(guest: GuestRef, change: ConfigChange, options: VolumeChangeOptions): Promise<string> {
    const { kind, node, vmid } = guest;
    const operation = await this.prepare(guest, change, options);
    return this.tasks.submit(
      operation ?? {
        node,
        vmid,
        type: kind.tasks.config ?? 'config',
        caller: options.caller,
        work: async (work) => work.line('configuration updated'),
      },
    );
  }

  /** Plans and checks the change; one that makes and destroys no volume is written here, else the operation that does it. */
  private async prepare(guest: GuestRef, change: ConfigChange, options: VolumeChangeOptions): Promise<GuestOperation | undefined> {
    const { kind, node, vmid } = guest;
    const storages = await this.storageMap();
    const planned = this.plan(kind, node, vmid, change, storages, options);
    mayChangeConfig(kind, this.row(vmid), options.digest);
    await this.newGuests.mayAllocate(planned.storages, options.caller);
    if (planned.allocate.length === 0 && planned.free.length === 0) {
      await this.write(kind, node, vmid, change, storages, options, planned);
      return undefined;
    }
    return {
      node,
      vmid,
      type: kind.tasks.config ?? 'config',
      caller: options.caller,
      work: (work) => this.run(kind, node, vmid, change, options, work),
    };
  }

  private async run(
    kind: GuestKind,
    node: string,
    vmid: number,
    change: ConfigChange,
    options: VolumeChangeOptions,
    work: GuestWork,
  ): Promise<void> {
    const storages = await this.storageMap();
    const before = this.row(vmid);
    const plan = this.plan(kind, node, vmid, change, storages, options);
    const made = volumesOf(kind, vmid, plan.config, plan.allocate, storages);
    if (made.length > 0) await work.agent('guest.volume.allocate', { type: kind.type, vmid, volumes: made }, VOLUME_MS);
    try {
      await this.write(kind, node, vmid, change, storages, options, plan);
    } catch (error) {
      if (made.length > 0) await work.on(node, 'guest.volume.free', { type: kind.type, vmid, volumes: made }, VOLUME_MS, { cleanup: true });
      throw error;
    }
    const freed = volumesOf(kind, vmid, before.config, plan.free, storages);
    if (freed.length > 0) await work.agent('guest.volume.free', { type: kind.type, vmid, volumes: freed }, VOLUME_MS);
  }

  /** Writes the planned config, planned again on the row as it is then: refused (409) when that plan's volumes differ from the planned ones. */
  private async write(
    kind: GuestKind,
    node: string,
    vmid: number,
    change: ConfigChange,
    storages: ReadonlyMap<string, StorageRow>,
    options: VolumeChangeOptions,
    planned: VolumeChangePlan,
  ): Promise<void> {
    await this.repository.update(vmid, async (row) => {
      mayChangeConfig(kind, row, options.digest);
      const again = planVolumeChange({
        kind,
        vmid,
        node,
        config: row.config,
        change,
        storages,
        running: runState(this.state(vmid)) !== 'stopped',
        force: options.force ?? false,
      });
      const same = (plan: VolumeChangePlan) =>
        JSON.stringify([plan.allocate.map((key) => plan.config[key]), plan.free.map((key) => row.config[key])]);
      if (same(again) !== same(planned))
        throw new ApiError('CONFIG_CHANGED', `the volumes of ${kind.noun} ${vmid} changed meanwhile: read its config again`);
      return { config: again.config };
    });
    await this.view.reload(vmid);
  }

  private plan(
    kind: GuestKind,
    node: string,
    vmid: number,
    change: ConfigChange,
    storages: ReadonlyMap<string, StorageRow>,
    options: VolumeChangeOptions,
  ): VolumeChangePlan {
    const state = this.state(vmid);
    return planVolumeChange({
      kind,
      vmid,
      node,
      config: state.row.config,
      change,
      storages,
      running: runState(state) !== 'stopped',
      force: options.force ?? false,
    });
  }

  private state(vmid: number) {
    const state = this.view.get(vmid);
    if (state === undefined) throw new ApiError('NOT_FOUND', `guest ${vmid} does not exist`);
    return state;
  }

  private row(vmid: number): GuestRow {
    return this.state(vmid).row;
  }

  private async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }
}

/** The volumes of `keys` in `config`, resolved as the agent needs them. */
export function volumesOf(
  kind: GuestKind,
  vmid: number,
  config: Readonly<Record<string, string>>,
  keys: readonly string[],
  storages: ReadonlyMap<string, StorageRow>,
): GuestVolume[] {
  if (keys.length === 0) return [];
  const picked = Object.fromEntries(keys.flatMap((key) => (config[key] === undefined ? [] : [[key, config[key]]])));
  return guestSpec({ vmid, type: kind.type, config: picked }, storages).volumes;
}
