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
 * (`storage.status`). As PVE's list shows what pvestatd reported last, a list shows the last answer:
 * once it is 10 s old the agent is asked again in the background, and lists meanwhile show the one
 * before, so that a list waits for no agent (only the first ask of a storage on a node waits, at most
 * 2 s) and polling the list does not ask every node each time.
 */
@Injectable()
export class StorageSizesOnNodes {
  private readonly answers = new Map<string, Answer>();

  constructor(private readonly hub: AgentHub) {}

  /** Null when the node's agent is not held by this replica, does not answer in time, or finds the storage inactive. */
  async of(storage: StorageRow, node: string): Promise<StorageSizes | null> {
    if (!this.hub.holds(node)) return null;
    const key = JSON.stringify([node, storage.path, storage.isMountpoint]);
    let answer = this.answers.get(key);
    if (answer === undefined) this.answers.set(key, (answer = { at: 0, sizes: undefined, asking: null }));
    if (answer.asking === null && Date.now() - answer.at >= FRESH_MS) {
      const asked = answer;
      asked.at = Date.now();
      asked.asking = this.ask(storage, node).then((sizes) => {
        asked.sizes = sizes;
        asked.asking = null;
      });
    }
    if (answer.sizes === undefined) await answer.asking;
    return answer.sizes ?? null;
  }

  private ask(storage: StorageRow, node: string): Promise<StorageSizes | null> {
    return this.hub.request(node, 'storage.status', { path: storage.path, mountpoint: storage.isMountpoint }, { timeoutMs: READ_MS }).then(
      (status) => (status.active ? { disk: status.used, maxdisk: status.total } : null),
      () => null,
    );
  }
}

/** The last answer about a storage on a node (undefined: none yet), when it was asked, and the ask under way. */
interface Answer {
  at: number;
  sizes: StorageSizes | null | undefined;
  asking: Promise<void> | null;
}
