import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { StorageRow } from './storage.entity.js';

/** The storages table. */
@Injectable()
export class StoragesRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(storage: string): Promise<StorageRow | null> {
    return this.dataSource.manager.findOneBy(StorageRow, { storage });
  }

  all(): Promise<StorageRow[]> {
    return this.dataSource.manager.find(StorageRow, { order: { storage: 'ASC' } });
  }

  /** A new definition; a storage of that id is a unique violation. */
  async insert(db: EntityManager, storage: StorageRow): Promise<void> {
    await db.insert(StorageRow, storage);
  }

  /** The definition, held until the transaction ends: changes of one storage happen one after another. */
  lock(db: EntityManager, storage: string): Promise<StorageRow | null> {
    return db.findOne(StorageRow, { where: { storage }, lock: { mode: 'pessimistic_write' } });
  }

  async save(db: EntityManager, storage: StorageRow): Promise<void> {
    await db.save(StorageRow, storage);
  }

  async remove(db: EntityManager, storage: string): Promise<void> {
    await db.delete(StorageRow, { storage });
  }
}
