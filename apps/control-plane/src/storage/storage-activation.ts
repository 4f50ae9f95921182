import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AgentHub } from '../agents/agent-hub.js';
import { ApiError } from '../errors/api-error.js';
import { LOGGER } from '../logging/loggers.js';
import { HOST_WRITE_MS } from '../agents/host-timeouts.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { availableOn } from './storage-config.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { StorageSpace } from './storage-space.js';

/**
 * Makes directory storages usable on their nodes (`storage.activate`: the path and the folders of
 * its content kinds): on every node this replica holds when a storage is defined or changed, and
 * on a node whose agent comes online, for every storage it holds.
 */
@Injectable()
export class StorageActivation {
  constructor(
    private readonly hub: AgentHub,
    private readonly space: StorageSpace,
    private readonly repository: StoragesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    hub.onOnline((node) => void this.nodeOnline(node));
  }

  /** On every node that holds the storage and is reachable here now; the first node that fails fails it all, naming the node. */
  async everywhere(storage: StorageRow): Promise<void> {
    if (storage.disable) return;
    await Promise.all(
      this.space.reachableNodes(storage).map((node) =>
        this.onNode(storage, node).catch((error: unknown) => {
          throw new ApiError(
            'HOST_COMMAND_FAILED',
            `storage '${storage.storage}' cannot be set up on node '${node}': ${error instanceof Error ? error.message : String(error)}`,
          );
        }),
      ),
    );
  }

  private async onNode(storage: StorageRow, node: string): Promise<void> {
    const { active } = await this.hub.request(
      node,
      'storage.activate',
      { path: storage.path, mountpoint: storage.isMountpoint, content: storage.content },
      { timeoutMs: HOST_WRITE_MS },
    );
    if (!active)
      this.logger.warn({ node, storage: storage.storage, path: storage.path }, 'storage inactive: nothing is mounted at its path');
  }

  private async nodeOnline(node: string): Promise<void> {
    try {
      const storages = (await this.repository.all()).filter((storage) => !storage.disable && availableOn(storage, node));
      for (const storage of storages) await this.onNode(storage, node);
    } catch (error) {
      this.logger.warn({ err: error, node }, 'cannot set up the storages of a node that came online');
    }
  }
}
