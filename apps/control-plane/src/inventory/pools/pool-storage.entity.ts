import { Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { StorageRow } from '../storage/storage.entity.js';
import { PoolRow } from './pool.entity.js';

/**
 * A storage's membership of a pool. A storage may be in several pools (PVE allows it); the
 * membership goes with the storage (cascade), while a pool with members cannot be deleted. A
 * trigger (migration 1764000000000) tells every replica's access snapshot of each change.
 */
@Entity({ name: 'pool_storages' })
export class PoolStorageRow {
  @PrimaryColumn('text')
  poolid!: string;

  @PrimaryColumn('text')
  storage!: string;

  @ManyToOne(() => PoolRow)
  @JoinColumn({ name: 'poolid' })
  pool?: PoolRow;

  @ManyToOne(() => StorageRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'storage' })
  storageRow?: StorageRow;
}
