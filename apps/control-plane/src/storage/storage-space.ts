import { Inject, Injectable } from '@nestjs/common';
import type { StorageStatus } from '@corral/protocol';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { AgentHub } from '../agents/agent-hub.js';
import { LOGGER } from '../logging/loggers.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { availableOn, contentText } from './storage-config.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import type { StorageStatusEntry } from './storage.endpoints.js';

/** How long a node may take to report a storage's space or list its files. */
export const STORAGE_READ_MS = 15_000;

const INACTIVE: StorageStatus = { active: false, total: 0, used: 0, avail: 0 };

/**
 * The space of storages as their nodes' file systems report it now (`storage.status`), for one
 * node or for the cluster: summed over the online nodes that hold the storage, a shared storage's
 * counted once (docs/storage.md).
 */
@Injectable()
export class StorageSpace {
  constructor(
    private readonly hub: AgentHub,
    private readonly view: NodeView,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The nodes that hold the storage and whose agents this replica holds now (so they are online), by name. */
  reachableNodes(storage: StorageRow): string[] {
    return this.view
      .list()
      .filter((node) => availableOn(storage, node.name) && this.hub.holds(node.name))
      .map((node) => node.name);
  }

  /** The nodes whose files are the storage's now: each reachable node that holds it, or one of them for a shared storage (every node sees the same files). */
  filesNodes(storage: StorageRow): string[] {
    const reachable = this.reachableNodes(storage);
    return storage.shared ? reachable.slice(0, 1) : reachable;
  }

  /** On one node, asked of its agent now (503 when it is not reachable); a disabled storage is inactive without asking. */
  onNode(storage: StorageRow, node: string): Promise<StorageStatus> {
    if (storage.disable) return Promise.resolve(INACTIVE);
    return this.hub.request(
      node,
      'storage.status',
      { path: storage.path, mountpoint: storage.isMountpoint },
      { timeoutMs: STORAGE_READ_MS },
    );
  }

  /** Over the cluster: a node that does not answer counts nothing (and is logged). */
  async inCluster(storage: StorageRow): Promise<StorageStatus> {
    const answers = await Promise.all(
      this.reachableNodes(storage).map((node) =>
        this.onNode(storage, node).catch((error: unknown) => {
          this.logger.warn({ err: error, node, storage: storage.storage }, 'a node did not report the space of a storage');
          return INACTIVE;
        }),
      ),
    );
    const active = answers.filter((answer) => answer.active);
    return (storage.shared ? active.slice(0, 1) : active).reduce(
      (sum, answer) => ({ active: true, total: sum.total + answer.total, used: sum.used + answer.used, avail: sum.avail + answer.avail }),
      INACTIVE,
    );
  }
}

/** PVE's status entry of a storage (`/nodes/{node}/storage`, `.../status`), 0/1 flags and the used fraction. */
export function statusEntry(storage: StorageRow, status: StorageStatus): z.infer<typeof StorageStatusEntry> {
  return {
    storage: storage.storage,
    type: storage.type,
    content: contentText(storage),
    shared: storage.shared ? 1 : 0,
    enabled: storage.disable ? 0 : 1,
    active: status.active ? 1 : 0,
    total: status.total,
    used: status.used,
    avail: status.avail,
    used_fraction: status.total > 0 ? status.used / status.total : 0,
  };
}
