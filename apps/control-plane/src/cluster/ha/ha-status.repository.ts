import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NodeRow } from '../../inventory/nodes/node.entity.js';
import { HaManagerRow } from './ha-manager.entity.js';
import { HaResourceRow } from '../../inventory/ha/ha-resource.entity.js';

/** What the HA status shows, read at once. */
export interface HaSnapshot {
  /** The database's clock, against which the manager's last round is judged. */
  readonly now: Date;
  readonly manager: HaManagerRow | null;
  readonly nodes: readonly Pick<NodeRow, 'name' | 'online' | 'lastSeen' | 'joinedAt' | 'leaseUntil'>[];
  /** Each resource with its guest's node. */
  readonly resources: readonly (HaResourceRow & { readonly node: string })[];
}

/** The HA status's reads: the manager's row, the nodes, the resources with their guests' nodes. */
@Injectable()
export class HaStatusRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** In one repeatable-read transaction, so the parts agree. */
  snapshot(): Promise<HaSnapshot> {
    return this.dataSource.transaction('REPEATABLE READ', async (db) => {
      const [{ now }] = (await db.query('SELECT now() AS "now"')) as [{ now: Date }];
      const manager = await db.findOneBy(HaManagerRow, { id: 1 });
      const nodes = await db.find(NodeRow, {
        select: { name: true, online: true, lastSeen: true, joinedAt: true, leaseUntil: true },
        order: { name: 'ASC' },
      });
      const resources = await db.find(HaResourceRow, { relations: { guest: true }, order: { vmid: 'ASC' } });
      return { now, manager, nodes, resources: resources.map(({ guest, ...resource }) => ({ ...resource, node: guest?.node ?? '' })) };
    });
  }
}
