import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
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
}
