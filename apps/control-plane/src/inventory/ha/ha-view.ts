import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource, In } from 'typeorm';
import { DatabaseNotifications } from '../../database/notifications.js';
import { SerialLoads } from '../../database/serial-loads.js';
import { LOGGER } from '../../logging/loggers.js';
import { HaResourceRow, type HaRequestedState } from './ha-resource.entity.js';

/** Notified with the vmid by a trigger on every insert, delete and change of state or group of `ha_resources`. */
export const HA_RESOURCES_CHANNEL = 'corral_ha_resources';

/** What a guest's `status/current` shows of its HA resource. */
export interface HaShown {
  readonly state: HaRequestedState;
  readonly group: string | null;
}

/**
 * Every HA resource's requested state and group, in memory, for `status/current` (which must not
 * query per request): loaded at start, reloaded on NOTIFY `corral_ha_resources` one load at a time
 * (`SerialLoads`), and after each write this replica makes (`reload`).
 */
@Injectable()
export class HaView implements OnModuleInit {
  private resources = new Map<number, HaShown>();
  private readonly loads: SerialLoads<number>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) logger: Logger,
    notifications: DatabaseNotifications,
  ) {
    this.loads = new SerialLoads({ some: (vmids) => this.load(vmids), all: () => this.reloadAll() }, (error) =>
      logger.warn({ err: error }, 'cannot reload the HA resources'),
    );
    notifications.subscribe(HA_RESOURCES_CHANNEL, (vmid) => this.loads.ask(vmid === null ? null : Number(vmid)));
  }

  async onModuleInit(): Promise<void> {
    await this.reloadAll();
  }

  get(vmid: number): HaShown | undefined {
    return this.resources.get(vmid);
  }

  /** Reloads one resource: a change this replica made shows in its next response. */
  reload(vmid: number): Promise<void> {
    return this.loads.ask(vmid);
  }

  private async load(vmids: readonly number[]): Promise<void> {
    const rows = await this.dataSource.manager.findBy(HaResourceRow, { vmid: In([...vmids]) });
    for (const vmid of vmids) this.resources.delete(vmid);
    for (const row of rows) this.resources.set(row.vmid, { state: row.state, group: row.group });
  }

  private async reloadAll(): Promise<void> {
    const rows = await this.dataSource.manager.find(HaResourceRow);
    this.resources = new Map(rows.map((row) => [row.vmid, { state: row.state, group: row.group }]));
  }
}
