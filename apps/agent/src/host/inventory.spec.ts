import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { cpus, release } from 'node:os';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { InventoryReport } from '@corral/protocol';
import { waitFor } from '@corral/testing';
import { openHost } from './host.js';
import { createInventory, type Inventory } from './inventory.js';
import { WatchedStorages } from '../commands/storage/watched-storages.js';
import { jsonLogger } from '../logging/logger.js';

const NONE = { read: () => Promise.resolve([]) };

describe('the inventory', () => {
  let dir: string;
  let inventory: Inventory | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-inventory-'));
  });
  afterEach(async () => {
    inventory?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("reports this machine's facts, valid for the protocol, with the host root's distribution and file system", async () => {
    await mkdir(join(dir, 'etc'));
    await writeFile(join(dir, 'etc/os-release'), 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\n');
    inventory = createInventory(await openHost(dir), NONE);
    const facts = await inventory.read();
    expect(InventoryReport.parse({ kind: 'inventory', ...facts })).toEqual({ kind: 'inventory', ...facts });
    expect(facts).toMatchObject({ os: 'Debian GNU/Linux 13 (trixie)', kernel: release(), maxcpu: cpus().length });
    expect(facts.mem).toBeGreaterThan(0);
    expect(facts.mem).toBeLessThan(facts.maxmem);
    const fs = await statfs(dir);
    expect(facts.maxdisk).toBe(fs.blocks * fs.bsize);
    expect(facts.disk).toBeLessThanOrEqual(facts.maxdisk);
    expect(facts.uptime).toBeGreaterThan(0);
  });

  it('names the distribution from /usr/lib/os-release, else "Linux" as os-release(5) says', async () => {
    inventory = createInventory(await openHost(dir), NONE);
    expect((await inventory.read()).os).toBe('Linux');
    inventory.close();
    await mkdir(join(dir, 'usr/lib'), { recursive: true });
    await writeFile(join(dir, 'usr/lib/os-release'), 'PRETTY_NAME=\'Some \\"Linux\\"\'\n');
    inventory = createInventory(await openHost(dir), NONE);
    expect((await inventory.read()).os).toBe('Some "Linux"');
  });

  it('polls again and picks up what changed', async () => {
    await mkdir(join(dir, 'etc'));
    await writeFile(join(dir, 'etc/os-release'), 'PRETTY_NAME="before"\n');
    const polled = (inventory = createInventory(await openHost(dir), NONE, 50));
    expect((await polled.read()).os).toBe('before');
    await writeFile(join(dir, 'etc/os-release'), 'PRETTY_NAME="after"\n');
    await waitFor(async () => (await polled.read()).os === 'after', { timeoutMs: 20_000, what: 'the next poll' });
  }, 30_000);

  it('reports the space of the watched storages, from the next poll on, and none before', async () => {
    const host = await openHost(dir);
    const watched = new WatchedStorages(
      host,
      jsonLogger(() => undefined),
    );
    const polled = (inventory = createInventory(host, watched, 50));
    expect((await polled.read()).storages).toBeUndefined();
    await mkdir(join(dir, 'var/lib/vz'), { recursive: true });
    watched.watch([
      { storage: 'local', path: '/var/lib/vz', mountpoint: false },
      { storage: 'usb', path: '/mnt/usb', mountpoint: true },
    ]);
    // A read slower than 2 s counts as inactive: a busy machine's disk may be that slow for a poll.
    let facts = await polled.read();
    await waitFor(
      async () => {
        facts = await polled.read();
        return facts.storages?.[0]?.active === true;
      },
      { timeoutMs: 20_000, what: 'a poll that read the watched storages' },
    );
    const fs = await statfs(dir);
    expect(facts.storages).toEqual([
      { storage: 'local', active: true, total: fs.blocks * fs.bsize, used: expect.any(Number), avail: expect.any(Number) },
      { storage: 'usb', active: false, total: 0, used: 0, avail: 0 },
    ]);
    expect(InventoryReport.parse({ kind: 'inventory', ...facts })).toEqual({ kind: 'inventory', ...facts });
  }, 30_000);
});
