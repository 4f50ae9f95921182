import type { StorageStatus } from '@corral/protocol';
import type { Host } from '../../host/host.js';
import { jsonLogger } from '../../logging/logger.js';
import { WatchedStorages } from './watched-storages.js';

const HOST = { root: '/' } as Host;
const SPACE: StorageStatus = { active: true, total: 100, used: 40, avail: 60 };

describe('the watched storages', () => {
  afterEach(() => jest.useRealTimers());

  it('reports a storage whose file system does not answer within 2 s as inactive, and does not ask it again while it hangs', async () => {
    jest.useFakeTimers();
    const asked: string[] = [];
    const read = (_host: Host, location: { path: string }) => {
      asked.push(location.path);
      return location.path === '/mnt/hung' ? new Promise<StorageStatus>(() => undefined) : Promise.resolve(SPACE);
    };
    const watched = new WatchedStorages(
      HOST,
      jsonLogger(() => undefined),
      read,
    );
    watched.watch([
      { storage: 'local', path: '/var/lib/vz', mountpoint: false },
      { storage: 'nfs', path: '/mnt/hung', mountpoint: true },
    ]);
    for (let poll = 0; poll < 2; poll++) {
      const spaces = watched.read();
      await jest.advanceTimersByTimeAsync(2000);
      expect(await spaces).toEqual([
        { storage: 'local', ...SPACE },
        { storage: 'nfs', active: false, total: 0, used: 0, avail: 0 },
      ]);
    }
    expect(asked).toEqual(['/var/lib/vz', '/mnt/hung', '/var/lib/vz']);
  });

  it('reports a storage whose read fails as inactive', async () => {
    const watched = new WatchedStorages(
      HOST,
      jsonLogger(() => undefined),
      () => Promise.reject(new Error('EIO')),
    );
    watched.watch([{ storage: 'local', path: '/var/lib/vz', mountpoint: false }]);
    expect(await watched.read()).toEqual([{ storage: 'local', active: false, total: 0, used: 0, avail: 0 }]);
  });
});
