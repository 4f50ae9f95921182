import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { NodeRow } from '../../inventory/nodes/node.entity.js';
import { HaGroupRow } from '../../inventory/ha/ha-group.entity.js';
import { HaResourceRow } from '../../inventory/ha/ha-resource.entity.js';

/** The ha_groups table, the nodes a group may name, and the resources that name a group. */
@Injectable()
export class HaGroupsRepository {
  constructor(private readonly dataSource: DataSource) {}

  all(): Promise<HaGroupRow[]> {
    return this.dataSource.manager.find(HaGroupRow, { order: { group: 'ASC' } });
  }

  find(group: string): Promise<HaGroupRow | null> {
    return this.dataSource.manager.findOneBy(HaGroupRow, { group });
  }

  /** A new group; one of that name is a unique violation. */
  async insert(group: HaGroupRow): Promise<void> {
    await this.dataSource.manager.insert(HaGroupRow, group);
  }

  /** Changes a group in one transaction, its row locked meanwhile: `change` gets the current row (null: there is none) and returns the new one. */
  update(group: string, change: (current: HaGroupRow | null) => HaGroupRow | Promise<HaGroupRow>): Promise<void> {
    return this.dataSource.transaction(async (db) => {
      await db.save(HaGroupRow, await change(await db.findOne(HaGroupRow, { where: { group }, lock: { mode: 'pessimistic_write' } })));
    });
  }

  /** False when there was none; a resource naming it makes this a foreign-key violation. */
  async remove(group: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(HaGroupRow, { group });
    return (result.affected ?? 0) > 0;
  }

  /** Those of `names` that are joined nodes. */
  async nodesOf(names: readonly string[]): Promise<Set<string>> {
    const rows = await this.dataSource.manager.find(NodeRow, { select: { name: true }, where: { name: In([...names]) } });
    return new Set(rows.map((row) => row.name));
  }

  /** The resources naming the group. */
  resourcesOf(group: string): Promise<HaResourceRow[]> {
    return this.dataSource.manager.find(HaResourceRow, { where: { group }, order: { vmid: 'ASC' } });
  }
}
