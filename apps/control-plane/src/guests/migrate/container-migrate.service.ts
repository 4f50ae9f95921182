import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import { notFound } from '../../errors/resource-errors.js';
import type { ParamsOf } from '../../http/endpoint.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { LXC } from '../guest-kinds.js';
import { guestSpec } from '../guest-spec.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { runState } from '../status-entry.js';
import { storageMapping, type StorageMapping } from './migrate-plan.js';
import type { MIGRATE_ENDPOINTS } from './migrate.endpoints.js';
import { MigrateService } from './migrate.service.js';

type ContainerMigrateRequest = ParamsOf<(typeof MIGRATE_ENDPOINTS)['migrateContainer']>;

/** PVE's default shutdown timeout of restart mode, in seconds. */
const RESTART_TIMEOUT_S = 180;
/** How long the start on the target may take. */
const START_MS = 5 * 60_000;

/**
 * Migration of containers (`.../lxc/{vmid}/migrate`, task `vzmigrate`; docs/guests.md
 * "Migration"): always offline, through the same steps as a VM's (MigrateService.move). A running
 * container moves in PVE's restart mode: shut down in the task, moved, started on the target.
 */
@Injectable()
export class ContainerMigrations {
  constructor(
    private readonly migrations: MigrateService,
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly hub: AgentHub,
  ) {}

  async migrate(request: ContainerMigrateRequest, caller: Principal): Promise<string> {
    const { node, vmid } = request;
    const mapping = storageMapping(request);
    const storages = await this.migrations.prepare(request, LXC, mapping, caller);
    return this.tasks.submit({
      node,
      vmid,
      type: 'vzmigrate',
      caller,
      check: () => void this.running(request),
      work: (work) => this.restartMove(work, request, storages, mapping),
    });
  }

  /**
   * Moves the container in a task that holds its queue: a running one is shut down first (after
   * `timeout` seconds stopped) and started on the target after, as PVE's restart mode; a stopped
   * one stays stopped. Also an HA relocation's (the HA manager then starts it, `start: false`).
   */
  async restartMove(
    work: GuestWork,
    request: Pick<ContainerMigrateRequest, 'node' | 'vmid' | 'target' | 'timeout'>,
    storages: ReadonlyMap<string, StorageRow>,
    mapping: StorageMapping,
    options: { readonly start?: boolean } = {},
  ): Promise<void> {
    const { node, vmid, target } = request;
    const wasRunning = runState(this.existing(node, vmid)) !== 'stopped';
    if (wasRunning) {
      const timeout = request.timeout ?? RESTART_TIMEOUT_S;
      work.line(`shutdown CT ${vmid}`);
      await work.agent('guest.shutdown', { type: 'lxc', vmid, timeout, forceStop: true }, (timeout + 60) * 1000);
    }
    await this.migrations.move(work, { node, vmid, target }, storages, mapping, { offline: true });
    if (!wasRunning || options.start === false) return;
    work.line(`start CT ${vmid} on node '${target}'`);
    await work.on(target, 'guest.start', { guest: guestSpec(this.existing(target, vmid).row, storages) }, START_MS);
  }

  /** PVE's rules for a running container, before the task and again when its turn comes; whether it runs. */
  private running(request: ContainerMigrateRequest): boolean {
    const { node, vmid, target } = request;
    const state = this.existing(node, vmid);
    if (state.row.lock !== null) throw new ApiError('GUEST_STATE', `CT ${vmid} is locked (${state.row.lock})`);
    this.hub.reachable(target);
    if (runState(state) === 'stopped') return false;
    if (request.online === true) throw new ApiError('GUEST_STATE', 'lxc live migration is currently not implemented');
    if (request.restart !== true) throw new ApiError('GUEST_STATE', 'running container can only be migrated in restart mode');
    return true;
  }

  private existing(node: string, vmid: number) {
    const state = this.view.get(vmid);
    if (!state || state.row.type !== 'lxc') throw notFound(`CT ${vmid}`);
    if (state.row.node !== node)
      throw new ApiError('NOT_FOUND', `CT ${vmid} does not exist on node '${node}' (it is on node '${state.row.node}')`);
    return state;
  }
}
