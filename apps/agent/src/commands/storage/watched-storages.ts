import type { StorageSpace, WatchedStorage } from '@corral/protocol';
import type { Host } from '../../host/host.js';
import type { Logger } from '../../logging/logger.js';
import { status } from './storage-folders.js';

/**
 * The storages the control plane last told this agent to watch (`storage.watch`), whose space goes
 * with every inventory: none until it says, and after a restart none until the next connection,
 * where the control plane says again.
 */
export class WatchedStorages {
  private storages: readonly WatchedStorage[] = [];

  constructor(
    private readonly host: Host,
    private readonly logger: Logger,
  ) {}

  /** `storage.watch`: these from now on, in place of the ones before. */
  watch(storages: readonly WatchedStorage[]): void {
    this.storages = storages;
  }

  /** The space of each, in order; one whose file system cannot be read now counts as inactive. */
  read(): Promise<StorageSpace[]> {
    return Promise.all(
      this.storages.map(async ({ storage, ...location }) => {
        try {
          return { storage, ...(await status(this.host, location)) };
        } catch (error) {
          this.logger.warn('cannot read the space of a storage', { storage, path: location.path, error });
          return { storage, active: false, total: 0, used: 0, avail: 0 };
        }
      }),
    );
  }
}
