import type { StorageSpace, StorageStatus, WatchedStorage } from '@corral/protocol';
import type { Host } from '../../host/host.js';
import type { Logger } from '../../logging/logger.js';
import { status } from './storage-folders.js';

/** How long a storage's file system may take to answer before its storage counts as inactive. */
const READ_MS = 2000;
const INACTIVE: StorageStatus = { active: false, total: 0, used: 0, avail: 0 };

/**
 * The storages the control plane last told this agent to watch (`storage.watch`), whose space goes
 * with every inventory: none until it says, and after a restart none until the next connection,
 * where the control plane says again.
 */
export class WatchedStorages {
  private storages: readonly WatchedStorage[] = [];
  /** The reads still under way, by location: a file system that hangs (a lost network mount) is not asked again meanwhile. */
  private readonly reading = new Map<string, Promise<StorageStatus>>();

  constructor(
    private readonly host: Host,
    private readonly logger: Logger,
    private readonly readStatus = status,
  ) {}

  /** `storage.watch`: these from now on, in place of the ones before. */
  watch(storages: readonly WatchedStorage[]): void {
    this.storages = storages;
  }

  /**
   * The space of each, in order. One whose file system cannot be read, or does not answer within
   * 2 s, counts as inactive, so that a hung mount does not hold back the node's other figures.
   */
  read(): Promise<StorageSpace[]> {
    return Promise.all(this.storages.map(async ({ storage, ...location }) => ({ storage, ...(await this.space(storage, location)) })));
  }

  private async space(storage: string, location: Omit<WatchedStorage, 'storage'>): Promise<StorageStatus> {
    const key = `${location.mountpoint}:${location.path}`;
    let read = this.reading.get(key);
    if (read === undefined) {
      read = this.readStatus(this.host, location).finally(() => this.reading.delete(key));
      this.reading.set(key, read);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<StorageStatus>((resolve) => (timer = setTimeout(() => resolve(INACTIVE), READ_MS)));
    try {
      return await Promise.race([read, late]);
    } catch (error) {
      this.logger.warn('cannot read the space of a storage', { storage, path: location.path, error });
      return INACTIVE;
    } finally {
      clearTimeout(timer);
    }
  }
}
