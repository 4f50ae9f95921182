import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { COMMANDS } from '@corral/protocol';
import { openHost, type Host } from '../../host/host.js';
import { runChecked } from '../../host/run-program.js';
import { listContent } from './storage-content.js';

const MTIME = new Date('2025-03-01T12:00:00Z');
const MTIME_S = MTIME.getTime() / 1000;
const ALL = ['images', 'rootdir', 'iso', 'vztmpl', 'backup', 'snippets', 'import'] as const;

describe('storage.content on a host root', () => {
  let dir: string;
  let host: Host;
  const signal = new AbortController().signal;
  const at = (path: string) => join(dir, 'var/lib/vz', path);
  const file = async (path: string, text = 'x') => {
    await mkdir(dirname(at(path)), { recursive: true });
    await writeFile(at(path), text);
    await utimes(at(path), MTIME, MTIME);
  };
  const list = (content: readonly (typeof ALL)[number][], vmid?: number) =>
    listContent(host, {
      storage: 'local',
      path: '/var/lib/vz',
      mountpoint: false,
      content: [...content],
      ...(vmid !== undefined ? { vmid } : {}),
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-content-'));
    host = await openHost(dir);
    await mkdir(at('images/100'), { recursive: true });
    await mkdir(at('images/101'), { recursive: true });
    await runChecked('qemu-img', ['create', '-f', 'qcow2', at('images/100/base-100-disk-0.qcow2'), String(32 * 1024 * 1024)], { signal });
    await runChecked(
      'qemu-img',
      ['create', '-f', 'qcow2', '-F', 'qcow2', '-b', at('images/100/base-100-disk-0.qcow2'), at('images/101/vm-101-disk-0.qcow2')],
      { signal },
    );
    await file('images/102/vm-102-disk-1.raw', 'r'.repeat(1000));
    await file('images/102/notes.txt');
    await mkdir(at('images/200/subvol-200-disk-0/etc'), { recursive: true });
    await file('template/iso/debian-13.iso', 'iso!');
    await file('template/iso/.debian-14.iso.corral-upload-0a1b2c');
    await file('template/iso/readme.txt');
    await file('template/cache/busybox.tar.gz', 'tgz');
    await file('template/cache/alpine-3.22.tar.zst', 'tzst');
    await file('dump/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst', 'vma');
    await file('dump/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst.notes', 'before the upgrade\n');
    await file('dump/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst.protected', '');
    await file('dump/vzdump-qemu-100-2025_01_31-02_00_00.log', 'INFO: ...');
    await file('dump/vzdump-lxc-200-2025_02_01-03_04_05.tar.zst', 'tar');
    await file('snippets/user.yaml', '#cloud-config\n');
    await file('import/debian-13-generic.qcow2', 'qcow');
    await file('import/appliance.ova', 'ova');
    await file('import/debian-13-generic.img', 'img');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("names every volume as PVE does, with sizes, formats and times from the files (a backup's from its name)", async () => {
    const found = await list(ALL);
    expect(COMMANDS['storage.content'].result.parse(found)).toEqual(found);
    const local = (y: number, mo: number, d: number, h: number, mi: number, s: number) => new Date(y, mo - 1, d, h, mi, s).getTime() / 1000;
    expect(found).toEqual([
      {
        volid: 'local:100/base-100-disk-0.qcow2',
        content: 'images',
        format: 'qcow2',
        size: 32 * 1024 * 1024,
        used: expect.any(Number),
        ctime: expect.any(Number),
        vmid: 100,
      },
      {
        volid: 'local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2',
        content: 'images',
        format: 'qcow2',
        size: 32 * 1024 * 1024,
        used: expect.any(Number),
        ctime: expect.any(Number),
        vmid: 101,
      },
      {
        volid: 'local:102/vm-102-disk-1.raw',
        content: 'images',
        format: 'raw',
        size: 1000,
        used: expect.any(Number),
        ctime: MTIME_S,
        vmid: 102,
      },
      { volid: 'local:200/subvol-200-disk-0', content: 'rootdir', format: 'subvol', size: 0, ctime: expect.any(Number), vmid: 200 },
      {
        volid: 'local:backup/vzdump-lxc-200-2025_02_01-03_04_05.tar.zst',
        content: 'backup',
        format: 'tar.zst',
        size: 3,
        ctime: local(2025, 2, 1, 3, 4, 5),
        vmid: 200,
        subtype: 'lxc',
      },
      {
        volid: 'local:backup/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst',
        content: 'backup',
        format: 'vma.zst',
        size: 3,
        ctime: local(2025, 1, 31, 2, 0, 0),
        vmid: 100,
        subtype: 'qemu',
        notes: 'before the upgrade',
        protected: true,
      },
      { volid: 'local:import/appliance.ova', content: 'import', format: 'ova', size: 3, ctime: MTIME_S },
      { volid: 'local:import/debian-13-generic.qcow2', content: 'import', format: 'qcow2', size: 4, ctime: MTIME_S },
      { volid: 'local:iso/debian-13.iso', content: 'iso', format: 'iso', size: 4, ctime: MTIME_S },
      { volid: 'local:snippets/user.yaml', content: 'snippets', format: 'snippet', size: 14, ctime: MTIME_S },
      { volid: 'local:vztmpl/alpine-3.22.tar.zst', content: 'vztmpl', format: 'tzst', size: 4, ctime: MTIME_S },
      { volid: 'local:vztmpl/busybox.tar.gz', content: 'vztmpl', format: 'tgz', size: 3, ctime: MTIME_S },
    ]);
  });

  it('lists only the asked kinds, and of one guest only its images and backups', async () => {
    expect((await list(['iso', 'vztmpl'])).map((volume) => volume.volid)).toEqual([
      'local:iso/debian-13.iso',
      'local:vztmpl/alpine-3.22.tar.zst',
      'local:vztmpl/busybox.tar.gz',
    ]);
    expect((await list(['rootdir'])).map((volume) => volume.volid)).toEqual(['local:200/subvol-200-disk-0']);
    expect((await list(ALL, 100)).map((volume) => volume.volid)).toEqual([
      'local:100/base-100-disk-0.qcow2',
      'local:backup/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst',
    ]);
  });

  it('finds nothing in a storage whose folders do not exist yet, and refuses an unmounted mount point storage', async () => {
    await expect(listContent(host, { storage: 'empty', path: '/srv/empty', mountpoint: false, content: [...ALL] })).resolves.toEqual([]);
    await expect(listContent(host, { storage: 'usb', path: '/var/lib/vz', mountpoint: true, content: ['iso'] })).rejects.toThrow(
      'storage path /var/lib/vz is not a mounted file system',
    );
  });
});
