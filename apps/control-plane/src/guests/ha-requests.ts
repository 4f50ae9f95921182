import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { HaRequestedState } from '../cluster/ha/ha-resource.entity.js';

/**
 * The HA side of a guest's power actions (docs/ha.md): a start, stop or shutdown of a guest under
 * HA goes through its requested state, as PVE's `hastart` and `hastop` tasks do, so that the HA
 * manager keeps it that way instead of undoing the action.
 */
@Injectable()
export class HaRequests {
  constructor(private readonly dataSource: DataSource) {}

  /** The state HA keeps the guest in; null when HA leaves it alone (no resource, or `ignored`). */
  async requested(vmid: number): Promise<Exclude<HaRequestedState, 'ignored'> | null> {
    const rows = (await this.dataSource.query('SELECT "state" FROM "ha_resources" WHERE "vmid" = $1', [vmid])) as { state: HaRequestedState }[];
    const state = rows[0]?.state;
    return state === undefined || state === 'ignored' ? null : state;
  }

  /** The guest's HA resource as `status/current` shows it (PVE's `ha`): its requested state and group; null when it has none. */
  async managed(vmid: number): Promise<{ state: HaRequestedState; group: string | null } | null> {
    const rows = (await this.dataSource.query('SELECT "state", "group" FROM "ha_resources" WHERE "vmid" = $1', [vmid])) as { state: HaRequestedState; group: string | null }[];
    return rows[0] ?? null;
  }

  /** Sets the requested state (PVE: `ha-manager crm-command start|stop`), unless the resource is gone or `ignored` by now. */
  async request(vmid: number, state: 'started' | 'stopped'): Promise<void> {
    await this.dataSource.query(`UPDATE "ha_resources" SET "state" = $2 WHERE "vmid" = $1 AND "state" <> 'ignored'`, [vmid, state]);
  }
}
