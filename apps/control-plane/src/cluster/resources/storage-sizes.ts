import { Injectable } from '@nestjs/common';
import { AgentHub } from '../../agents/agent-hub.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';

/** How long an answer is shown again: PVE's pvestatd reports the storages' space every 10 s. */
const FRESH_MS = 10_000;
/** How long a node's agent may take to answer: a slow node must not hold up the whole list. */
const READ_MS = 2000;

/** PVE's sizes of a storage's entry: bytes used and in all on that node. */
export interface StorageSizes {
  readonly disk: number;
  readonly maxdisk: number;
}

/**
 * The sizes of storages on nodes as `/cluster/resources` shows them, asked of each node's agent
 * (`storage.status`). An answer is reused for 10 s, as PVE's list shows what pvestatd reported
 * last, so that polling the list does not ask every node each time; lists asked meanwhile share it.
 */
@Injectable()
export class StorageSizesOnNodes {
  private readonly answers = new Map<string, { readonly at: number; readonly sizes: Promise<StorageSizes | null> }>();

  constructor(private readonly hub: AgentHub) {}

  /** Null when the node's agent is not held by this replica, does not answer in time, or finds the storage inactive. */
  of(storage: StorageRow, node: string): Promise<StorageSizes | null> {
    if (!this.hub.holds(node)) return Promise.resolve(null);
    const key = JSON.stringify([node, storage.path, storage.isMountpoint]);
    const now = Date.now();
    const known = this.answers.get(key);
    if (known && now - known.at < FRESH_MS) return known.sizes;
    const sizes = this.hub
      .request(node, 'storage.status', { path: storage.path, mountpoint: storage.isMountpoint }, { timeoutMs: READ_MS })
      .then(
        (status) => (status.active ? { disk: status.used, maxdisk: status.total } : null),
        () => null,
      );
    this.answers.set(key, { at: now, sizes });
    return sizes;
  }
}
