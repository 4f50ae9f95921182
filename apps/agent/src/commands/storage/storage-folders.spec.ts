import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHost, type Host } from '../../host/host.js';
import { activate, status } from './storage-folders.js';

describe('storage.activate and storage.status on a host root', () => {
  let dir: string;
  let host: Host;
  const isFolder = (path: string) =>
    stat(join(dir, path)).then(
      (found) => found.isDirectory(),
      () => false,
    );

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-storage-'));
    host = await openHost(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("creates the path and the folders of the storage's content kinds, and again changes nothing", async () => {
    const params = { path: '/srv/data', mountpoint: false, content: ['iso', 'vztmpl', 'backup', 'rootdir'] as const };
    await expect(activate(host, { ...params, content: [...params.content] })).resolves.toEqual({ active: true });
    await expect(activate(host, { ...params, content: [...params.content] })).resolves.toEqual({ active: true });
    for (const folder of ['srv/data/template/iso', 'srv/data/template/cache', 'srv/data/dump', 'srv/data/images'])
      expect(await isFolder(folder)).toBe(true);
    expect(await isFolder('srv/data/snippets')).toBe(false);
  });

  it('leaves a mount point storage alone while nothing is mounted at its path, and calls it inactive', async () => {
    await mkdir(join(dir, 'mnt/backups'), { recursive: true });
    const location = { path: '/mnt/backups', mountpoint: true };
    await expect(activate(host, { ...location, content: ['backup'] })).resolves.toEqual({ active: false });
    expect(await isFolder('mnt/backups/dump')).toBe(false);
    await expect(status(host, location)).resolves.toEqual({ active: false, total: 0, used: 0, avail: 0 });
    await expect(activate(host, { path: '/mnt/elsewhere', mountpoint: true, content: ['backup'] })).resolves.toEqual({ active: false });
    expect(await isFolder('mnt/elsewhere')).toBe(false);
  });

  it("reports the file system's size, use and free space, and an inactive storage where the path is missing", async () => {
    await activate(host, { path: '/var/lib/vz', mountpoint: false, content: ['iso'] });
    const found = await status(host, { path: '/var/lib/vz', mountpoint: false });
    expect(found.active).toBe(true);
    expect(found.total).toBeGreaterThan(0);
    expect(found.used + found.avail).toBeLessThanOrEqual(found.total);
    expect(found.avail).toBeGreaterThan(0);
    await expect(status(host, { path: '/var/lib/none', mountpoint: false })).resolves.toEqual({
      active: false,
      total: 0,
      used: 0,
      avail: 0,
    });
  });

  it('takes the host root and a mounted file system (/proc) as mounted, a plain folder of one (/usr/share) not', async () => {
    const root = await openHost('/');
    await expect(status(root, { path: '/', mountpoint: true })).resolves.toMatchObject({ active: true });
    await expect(status(root, { path: '/proc', mountpoint: true })).resolves.toMatchObject({ active: true });
    await expect(status(root, { path: '/usr/share', mountpoint: true })).resolves.toMatchObject({ active: false });
  });
});
