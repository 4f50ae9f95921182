import type { WatchedStorage } from '@corral/protocol';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AgentHub } from '../agents/agent-hub.js';
import { HOST_READ_MS } from '../agents/host-timeouts.js';
import { StorageView } from '../inventory/storage/storage-view.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { LOGGER } from '../logging/loggers.js';
import { availableOn } from './storage-config.js';

/**
 * Tells each agent this replica holds which storages to report the space of with its inventory
 * (`storage.watch`: the enabled ones defined for its node), as PVE's pvestatd reports every
 * storage of its node: when the agent is welcomed, and when the definitions change on any replica
 * (each replica tells the agents it holds). `/cluster/resources` shows what the inventories say,
 * so a list never asks an agent.
 */
@Injectable()
export class StorageWatches {
  /** What each held node was last told (as JSON), so that a change elsewhere tells it nothing again. */
  private readonly told = new Map<string, string>();

  constructor(
    private readonly hub: AgentHub,
    private readonly storages: StorageView,
    private readonly nodes: NodeView,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    hub.onOnline((node) => {
      this.told.delete(node);
      void this.tell(node);
    });
    storages.onChange(() => {
      for (const node of this.nodes.list()) if (this.hub.holds(node.name)) void this.tell(node.name);
    });
  }

  private async tell(node: string): Promise<void> {
    const storages: WatchedStorage[] = this.storages
      .list()
      .filter((storage) => !storage.disable && availableOn(storage, node))
      .map((storage) => ({ storage: storage.storage, path: storage.path, mountpoint: storage.isMountpoint }));
    const text = JSON.stringify(storages);
    if (this.told.get(node) === text) return;
    this.told.set(node, text);
    try {
      await this.hub.request(node, 'storage.watch', { storages }, { timeoutMs: HOST_READ_MS });
    } catch (error) {
      // Told again on its next welcome; an agent older than the command reports no storage space.
      if (this.told.get(node) === text) this.told.delete(node);
      this.logger.warn({ err: error, node }, 'cannot tell an agent which storages to report');
    }
  }
}
