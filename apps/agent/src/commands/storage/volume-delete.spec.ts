import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openHost, type Host } from '../../host/host.js';
import { deleteVolume } from './volume-delete.js';

describe('storage.volume.delete on a host root', () => {
  let dir: string;
  let host: Host;
  const at = (path: string) => join(dir, 'var/lib/vz', path);
  const file = async (path: string) => {
    await mkdir(dirname(at(path)), { recursive: true });
    await writeFile(at(path), 'x');
  };
  const remove = (file: string) => deleteVolume(host, { path: '/var/lib/vz', mountpoint: false, file });
  const names = (folder: string) => readdir(at(folder)).catch(() => null);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-delete-'));
    host = await openHost(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('removes an ISO image, and says so when it does not exist', async () => {
    await file('template/iso/a.iso');
    await file('template/iso/b.iso');
    await expect(remove('template/iso/a.iso')).resolves.toBeNull();
    expect(await names('template/iso')).toEqual(['b.iso']);
    await expect(remove('template/iso/a.iso')).rejects.toThrow('volume /var/lib/vz/template/iso/a.iso does not exist');
  });

  it('removes a backup with its notes and log, but not while it is protected', async () => {
    const archive = 'dump/vzdump-lxc-200-2025_02_01-03_04_05.tar.zst';
    for (const path of [
      archive,
      `${archive}.notes`,
      `${archive}.protected`,
      'dump/vzdump-lxc-200-2025_02_01-03_04_05.log',
      'dump/vzdump-lxc-201-2025_02_01-03_04_05.tar.zst',
    ])
      await file(path);
    await expect(remove(archive)).rejects.toThrow(`backup ${archive} is protected`);
    await rm(at(`${archive}.protected`));
    await expect(remove(archive)).resolves.toBeNull();
    expect(await names('dump')).toEqual(['vzdump-lxc-201-2025_02_01-03_04_05.tar.zst']);
  });

  it("removes a container's root folder and a guest's last image with the guest's folder", async () => {
    await mkdir(at('images/200/subvol-200-disk-0/etc'), { recursive: true });
    await file('images/200/subvol-200-disk-0/etc/hostname');
    await file('images/200/vm-200-disk-1.raw');
    await remove('images/200/subvol-200-disk-0');
    expect(await names('images/200')).toEqual(['vm-200-disk-1.raw']);
    await remove('images/200/vm-200-disk-1.raw');
    expect(await names('images/200')).toBeNull();
  });

  it('refuses a folder where a file volume is named', async () => {
    await mkdir(at('template/iso/odd.iso'), { recursive: true });
    await expect(remove('template/iso/odd.iso')).rejects.toThrow('is a folder, not a volume');
  });
});
