import { Injectable } from '@nestjs/common';
import { DataSource, Not, type EntityManager } from 'typeorm';
import { GuestRow } from '../guests/guest.entity.js';
import { HaGroupRow } from './ha-group.entity.js';
import { HaResourceRow } from './ha-resource.entity.js';
import { HaView } from './ha-view.js';

/** What a change of a resource sees, in its transaction: the resource, its guest (locked for share), and whether a group exists. */
export interface ResourceChangeContext {
  readonly current: HaResourceRow | null;
  readonly guest: GuestRow | null;
  groupExists(group: string): Promise<boolean>;
}

/**
 * The ha_resources table. Each write runs in one transaction with the guest's row locked FOR SHARE,
 * so the guest's lock and existence checked are those the write commits with; the HA view reloads
 * the resource once it committed.
 */
@Injectable()
export class HaResourcesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly view: HaView,
  ) {}

  all(type?: 'vm' | 'ct'): Promise<HaResourceRow[]> {
    return this.dataSource.manager.find(HaResourceRow, { where: type !== undefined ? { type } : {}, order: { vmid: 'ASC' } });
  }

  find(vmid: number): Promise<HaResourceRow | null> {
    return this.dataSource.manager.findOneBy(HaResourceRow, { vmid });
  }

  /** `change` gets what it checks and returns the row to write (insert when `current` is null), or throws and nothing is written. */
  async write(vmid: number, change: (context: ResourceChangeContext) => Promise<HaResourceRow>): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      const guest = await db.findOne(GuestRow, { where: { vmid }, lock: { mode: 'pessimistic_read' } });
      const current = await db.findOne(HaResourceRow, { where: { vmid }, lock: { mode: 'pessimistic_write' } });
      const next = await change({ current, guest, groupExists: (group) => groupExists(db, group) });
      if (current === null) await db.insert(HaResourceRow, next);
      else await db.save(HaResourceRow, next);
    });
    await this.view.reload(vmid);
  }

  /**
   * Sets the requested state of a guest's resource, as PVE's `hastart`/`hastop` do (`ha-manager
   * crm-command start|stop`), unless the resource is gone or `ignored` by now.
   */
  async request(vmid: number, state: 'started' | 'stopped'): Promise<void> {
    await this.dataSource.manager.update(HaResourceRow, { vmid, state: Not('ignored') }, { state });
    await this.view.reload(vmid);
  }

  async remove(vmid: number): Promise<boolean> {
    const result = await this.dataSource.manager.delete(HaResourceRow, { vmid });
    await this.view.reload(vmid);
    return (result.affected ?? 0) > 0;
  }
}

function groupExists(db: EntityManager, group: string): Promise<boolean> {
  return db.exists(HaGroupRow, { where: { group } });
}
