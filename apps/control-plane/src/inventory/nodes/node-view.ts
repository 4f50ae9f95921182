import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DatabaseNotifications } from '../../database/notifications.js';
import { SerialLoads } from '../../database/serial-loads.js';
import { LOGGER } from '../../logging/loggers.js';
import type { NodeInventory, NodeRow } from './node.entity.js';
import { meaningfulChange } from './inventory-change.js';
import { NODES_CHANNEL, NodesRepository } from './nodes.repository.js';

/** How long a meaningfully changed inventory waits to be written with the others changed meanwhile. */
const SAVE_MS = 1000;

/** A node as the hot reads (`/nodes`, `/cluster/status`) show it. */
export interface NodeState {
  readonly name: string;
  readonly online: boolean;
  /** The replica holding its agent (its id), while online. */
  readonly replica: string | null;
  /** Where that replica sees its agent connect from. */
  readonly address: string | null;
  readonly agentVersion: string | null;
  readonly capabilities: readonly string[];
  /** The newest inventory: live from the agent where this replica holds its connection, else as last written. */
  readonly inventory: NodeInventory | null;
}

/**
 * Every node, in memory. Loaded at start,
 * then kept current by NOTIFY on NODES_CHANNEL (the rows notified reloaded, one load at a time; all
 * of them after the listener was lost) and by the inventory reports of the agents this replica holds,
 * which are written to the database only when they changed meaningfully: those of a second
 * together, in one commit. A commit that notifies takes PostgreSQL's one notification queue lock
 * until it is flushed to disk, so a thousand nodes' writes one by one would queue every other
 * notifying commit behind them.
 */
@Injectable()
export class NodeView implements OnModuleInit, OnModuleDestroy {
  private nodes = new Map<string, NodeState>();
  /** Every node's name in order, until a node comes or goes. */
  private sorted: string[] | undefined;
  /** The newest inventory of the agents this replica holds, and what of it was last written (or is about to be). */
  private readonly live = new Map<string, NodeInventory>();
  private readonly written = new Map<string, NodeInventory>();
  /** The inventories to write at the next save, by node. */
  private unsaved = new Map<string, NodeInventory>();
  private saving: NodeJS.Timeout | null = null;
  /** The saves, one after another: an older inventory never commits after a newer one of its node. */
  private saves: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly loads: SerialLoads<string>;

  constructor(
    private readonly repository: NodesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    notifications: DatabaseNotifications,
  ) {
    this.loads = new SerialLoads({ some: (names) => this.load(names), all: () => this.reloadAll() }, (error) =>
      this.logger.warn({ err: error }, 'cannot reload the nodes'),
    );
    notifications.subscribe(NODES_CHANNEL, (name) => this.loads.ask(name));
  }

  async onModuleInit(): Promise<void> {
    await this.reloadAll();
  }

  /** Writes what waits to be written: a replica that stops keeps no inventory back. */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.saving) clearTimeout(this.saving);
    await this.nextSave();
  }

  /** Every node, by name. */
  list(): NodeState[] {
    this.sorted ??= [...this.nodes.keys()].sort((a, b) => a.localeCompare(b));
    const nodes: NodeState[] = [];
    for (const name of this.sorted) {
      const node = this.nodes.get(name);
      if (node !== undefined) nodes.push(node);
    }
    return nodes;
  }

  get(name: string): NodeState | undefined {
    return this.nodes.get(name);
  }

  /** An inventory report of an agent this replica holds: shown at once, written when it changed meaningfully since it was last written. */
  report(name: string, inventory: NodeInventory): void {
    const node = this.nodes.get(name);
    if (!node) return;
    this.live.set(name, inventory);
    const written = this.written.get(name) ?? node.inventory;
    this.nodes.set(name, { ...node, inventory });
    if (written !== null && !meaningfulChange(written, inventory)) return;
    this.written.set(name, inventory);
    this.unsaved.set(name, inventory);
    this.saveSoon();
  }

  /** This replica no longer holds the node's agent: its inventory is the database's again. */
  forget(name: string): void {
    this.live.delete(name);
    this.written.delete(name);
    this.unsaved.delete(name);
  }

  private saveSoon(): void {
    this.saving ??= setTimeout(() => void this.nextSave(), SAVE_MS).unref();
  }

  private nextSave(): Promise<void> {
    this.saving = null;
    this.saves = this.saves.then(() => this.save());
    return this.saves;
  }

  /** Writes the inventories that wait; those that fail wait for the next save, unless a newer one came meanwhile. */
  private async save(): Promise<void> {
    const batch = this.unsaved;
    if (batch.size === 0) return;
    this.unsaved = new Map();
    try {
      await this.repository.saveInventories(batch);
    } catch (error) {
      this.logger.warn({ err: error, nodes: batch.size }, 'cannot save the inventories of nodes; trying again');
      if (this.closed) return;
      for (const [name, inventory] of batch) if (this.live.has(name) && !this.unsaved.has(name)) this.unsaved.set(name, inventory);
      this.saveSoon();
    }
  }

  /** Reloads one node: a change this replica made shows in its next response, not only after the notification. */
  reload(name: string): Promise<void> {
    return this.loads.ask(name);
  }

  /** Loads the rows of `names`, replacing what the view held of them. */
  private async load(names: readonly string[]): Promise<void> {
    const rows = new Map((await this.repository.named(names)).map((row) => [row.name, row]));
    for (const name of names) {
      const row = rows.get(name);
      if (!this.nodes.has(name) || !row) this.sorted = undefined;
      if (row) this.nodes.set(name, this.stateOf(row));
      else this.nodes.delete(name);
    }
  }

  private async reloadAll(): Promise<void> {
    const rows = await this.repository.all();
    this.nodes = new Map(rows.map((row) => [row.name, this.stateOf(row)]));
    this.sorted = undefined;
  }

  private stateOf(row: NodeRow): NodeState {
    return {
      name: row.name,
      online: row.online,
      replica: row.replica,
      address: row.address,
      agentVersion: row.agentVersion,
      capabilities: row.capabilities,
      inventory: this.live.get(row.name) ?? row.inventory,
    };
  }
}
