import { Injectable } from '@nestjs/common';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { AgentHub } from '../agents/agent-hub.js';
import { changedConfig, mayChangeConfig, plannedChange } from './config-change.js';
import { configDigest } from '@corral/pve-formats';
import type { ConfigUpdate } from './config-update.js';
import { wireConfig } from './config-view.js';
import type { GuestRef } from './guest-ref.js';
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
    await this.applyChange(guest, change, digest);
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
    await this.applyChange(guest, change, digest);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.config ?? 'config',
      caller,
      work: async (work) => work.line('configuration updated'),
    });
  }

  private async plannedChange(update: ConfigUpdate, caller: Principal): Promise<ConfigChange> {
    const access = await this.access.current();
    const { config } = this.states.anywhere(update.guest.kind, update.guest.vmid).row;
    return plannedChange(update, config, access, caller);
  }

  private async applyChange(guest: GuestRef, change: ConfigChange, digest: string | undefined): Promise<void> {
    await this.repository.update(guest.vmid, async (row) => {
      mayChangeConfig(guest.kind, row, digest);
      return { config: changedConfig(guest.kind, row.config, change) };
    });
    await this.view.reload(guest.vmid);
  }
}
