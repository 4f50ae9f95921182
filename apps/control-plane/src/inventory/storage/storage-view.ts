import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource, In } from 'typeorm';
import { DatabaseNotifications } from '../../database/notifications.js';
import { SerialLoads } from '../../database/serial-loads.js';
import { LOGGER } from '../../logging/loggers.js';
import { StorageRow } from './storage.entity.js';

/** Notified with the storage's id by a trigger on every insert, change and delete of `storages`. */
export const STORAGES_CHANNEL = 'corral_storages';

/**
 * Every storage definition, in memory, for the hot list (`/cluster/resources` must not query per
 * request) and for telling the agents which storages to report: loaded at start, reloaded on
 * NOTIFY `corral_storages` one load at a time (`SerialLoads`), and after each write this replica
 * makes (`reload`). A row is replaced, never changed; listeners hear of every load.
 */
@Injectable()
export class StorageView implements OnModuleInit {
  private storages = new Map<string, StorageRow>();
  /** Every storage by id, until one is loaded again. */
  private sorted: StorageRow[] | undefined;
  private readonly listeners: (() => void)[] = [];
  private readonly loads: SerialLoads<string>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) logger: Logger,
    notifications: DatabaseNotifications,
  ) {
    this.loads = new SerialLoads({ some: (ids) => this.load(ids), all: () => this.reloadAll() }, (error) =>
      logger.warn({ err: error }, 'cannot reload the storages'),
    );
    notifications.subscribe(STORAGES_CHANNEL, (id) => this.loads.ask(id));
  }

  async onModuleInit(): Promise<void> {
    await this.reloadAll();
  }

  /** Every storage, by id. */
  list(): readonly StorageRow[] {
    this.sorted ??= [...this.storages.values()].sort((a, b) => (a.storage < b.storage ? -1 : a.storage > b.storage ? 1 : 0));
    return this.sorted;
  }

  /** Called after every load, with the view holding what it loaded. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Reloads one storage: a change this replica made shows in its next response. */
  reload(id: string): Promise<void> {
    return this.loads.ask(id);
  }

  private async load(ids: readonly string[]): Promise<void> {
    const rows = await this.dataSource.manager.findBy(StorageRow, { storage: In([...ids]) });
    for (const id of ids) this.storages.delete(id);
    for (const row of rows) this.storages.set(row.storage, row);
    this.changed();
  }

  private async reloadAll(): Promise<void> {
    const rows = await this.dataSource.manager.find(StorageRow);
    this.storages = new Map(rows.map((row) => [row.storage, row]));
    this.changed();
  }

  private changed(): void {
    this.sorted = undefined;
    for (const listener of this.listeners) listener();
  }
}
