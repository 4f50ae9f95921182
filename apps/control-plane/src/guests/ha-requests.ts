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

  /** The guest's HA resource (PVE's `ha` of `status/current`): its requested state and group; null when it has none. */
  async managed(vmid: number): Promise<{ state: HaRequestedState; group: string | null } | null> {
    const rows = (await this.dataSource.query('SELECT "state", "group" FROM "ha_resources" WHERE "vmid" = $1', [vmid])) as { state: HaRequestedState; group: string | null }[];
    return rows[0] ?? null;
  }

  /** Whether HA keeps the guest in a state (it has a resource, not `ignored`): its power actions are then HA requests. */
  async keeps(vmid: number): Promise<boolean> {
    const resource = await this.managed(vmid);
    return resource !== null && resource.state !== 'ignored';
  }

  /** Sets the requested state (PVE: `ha-manager crm-command start|stop`), unless the resource is gone or `ignored` by now. */
  async request(vmid: number, state: 'started' | 'stopped'): Promise<void> {
    await this.dataSource.query(`UPDATE "ha_resources" SET "state" = $2 WHERE "vmid" = $1 AND "state" <> 'ignored'`, [vmid, state]);
  }
}
