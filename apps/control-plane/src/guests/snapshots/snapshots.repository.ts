import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { GuestSnapshotRow } from './guest-snapshot.entity.js';

/** The guest_snapshots table; changes that go with a change of the guest's row take its transaction's manager. */
@Injectable()
export class SnapshotsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The guest's snapshots, oldest first. */
  list(vmid: number): Promise<GuestSnapshotRow[]> {
    return this.dataSource.manager.find(GuestSnapshotRow, { where: { vmid }, order: { snaptime: 'ASC', name: 'ASC' } });
  }

  get(vmid: number, name: string): Promise<GuestSnapshotRow | null> {
    return this.dataSource.manager.findOneBy(GuestSnapshotRow, { vmid, name });
  }

  async setDescription(vmid: number, name: string, description: string): Promise<void> {
    await this.dataSource.manager.update(GuestSnapshotRow, { vmid, name }, { description });
  }

  async insert(db: EntityManager, snapshot: GuestSnapshotRow): Promise<void> {
    await db.insert(GuestSnapshotRow, snapshot);
  }

  /** Removes a snapshot; its children take its parent, so the tree stays whole. */
  async remove(db: EntityManager, snapshot: Pick<GuestSnapshotRow, 'vmid' | 'name' | 'parent'>): Promise<void> {
    await db.delete(GuestSnapshotRow, { vmid: snapshot.vmid, name: snapshot.name });
    await db.update(GuestSnapshotRow, { vmid: snapshot.vmid, parent: snapshot.name }, { parent: snapshot.parent });
  }
}
