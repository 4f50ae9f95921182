import { Injectable } from '@nestjs/common';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { AgentHub } from '../agents/agent-hub.js';
import { changedConfig, mayChangeConfig, mayGiveSkiplock, plannedChange } from './config-change.js';
import { configDigest } from '@corral/pve-formats';
import type { ConfigUpdate } from './config-update.js';
import { wireConfig } from './config-view.js';
import type { GuestRef } from './guest-ref.js';
import { badParam } from '../errors/resource-errors.js';
import { GuestStates } from './guest-states.js';
import { GuestTasks } from './guest-tasks.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { touchesVolumes, type ConfigChange } from './volumes/volume-change.js';
import { VolumeChanges } from './volumes/volume-changes.js';

/** The guests' configuration: read with its `digest`, changed at once under PVE's per-key privileges (docs/guests.md). */
@Injectable()
export class GuestConfigService {
  constructor(
    private readonly states: GuestStates,
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly access: AccessState,
    private readonly hub: AgentHub,
    private readonly volumeChanges: VolumeChanges,
  ) {}

  /** The config as PVE answers it: typed values, the cloud-init password masked, the `digest` and the `lock`. */
  config(guest: GuestRef): Record<string, string | number> {
    const { config, lock } = this.states.existing(guest).row;
    const shown = { ...config, ...(config['cipassword'] !== undefined ? { cipassword: '**********' } : {}) };
    return { ...wireConfig(guest.kind, shown), digest: configDigest(config), ...(lock !== null ? { lock } : {}) };
  }

  /**
   * Changes the config at once (PUT): the keys given, `delete`d ones removed, refused (409) when
   * `digest` is not the current config's. A running guest gets the change at its next start.
   */
  async setConfig(update: ConfigUpdate, caller: Principal): Promise<null> {
    const { guest, digest } = update;
    this.states.existing(guest);
    const change = await this.plannedChange(update, caller);
    if (touchesVolumes(guest.kind, change)) return this.volumeChanges.now(guest, change, { caller, digest });
    await this.applyChange(update, change);
    return null;
  }

  /** `POST .../config`: the same change, answered with a task as PVE's async variant. */
  async setConfigAsync(update: ConfigUpdate, caller: Principal): Promise<string> {
    const { guest, digest } = update;
    const { kind, node, vmid } = guest;
    this.states.existing(guest);
    const change = await this.plannedChange(update, caller);
    this.hub.reachable(node);
    if (touchesVolumes(kind, change)) return this.volumeChanges.asTask(guest, change, { caller, digest });
    await this.applyChange(update, change);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.config ?? 'config',
      caller,
      work: async (work) => work.line('configuration updated'),
    });
  }

  /** The change planned as PVE allows it; `skiplock` and `delete=lock` go only with keys that are no volumes. */
  private async plannedChange(update: ConfigUpdate, caller: Principal): Promise<ConfigChange> {
    mayGiveSkiplock(update, caller);
    const access = await this.access.current();
    const { config } = this.states.anywhere(update.guest.kind, update.guest.vmid).row;
    const change = plannedChange(update, config, access, caller);
    if ((update.skiplock || update.unlock) && touchesVolumes(update.guest.kind, change)) {
      throw badParam(update.skiplock ? 'skiplock' : 'delete', 'a lock is skipped or removed only with config keys that are no volumes');
    }
    return change;
  }

  /** Writes the change unless the guest is locked (but with `skiplock`) or its config is no longer `digest`'s; `delete=lock` removes the lock. */
  private async applyChange(update: ConfigUpdate, change: ConfigChange): Promise<void> {
    const { guest } = update;
    await this.repository.update(guest.vmid, async (row) => {
      mayChangeConfig(guest.kind, update.skiplock ? { ...row, lock: null } : row, update.digest);
      return { config: changedConfig(guest.kind, row.config, change), ...(update.unlock ? { lock: null } : {}) };
    });
    await this.view.reload(guest.vmid);
  }
}
