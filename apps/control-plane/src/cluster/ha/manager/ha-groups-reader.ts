import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HaGroupRow } from '../ha-group.entity.js';

/** The HA groups as the manager reads them to place a guest. */
@Injectable()
export class HaGroupsReader {
  constructor(private readonly dataSource: DataSource) {}

  async get(group: string): Promise<HaGroupRow | null> {
    return this.dataSource.getRepository(HaGroupRow).findOneBy({ group });
  }
}
