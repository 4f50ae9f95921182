import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestVolume } from '@corral/protocol';
import { hostPath, openHost, type Host } from '../../../host/host.js';
import { makeVolumeDirectory, removeVolume } from './lxc-volumes.js';

const signal = new AbortController().signal;
const subvol = (path: string): GuestVolume => ({
  key: 'rootfs',
  volid: 'local:200/subvol-200-disk-0',
  path,
  format: 'subvol',
  size: 1024 ** 3,
});
const ROOTFS = '/var/lib/vz/images/200/subvol-200-disk-0';

describe('container volumes', () => {
  let dir: string;
  let host: Host;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-lxc-volumes-'));
    host = await openHost(dir);
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes a volume directory and undoes it down to the first folder it made', async () => {
    await mkdir(hostPath(host, '/var/lib/vz/images'), { recursive: true });
    const undo = await makeVolumeDirectory(host, 200, subvol(ROOTFS));
    expect(await readdir(hostPath(host, ROOTFS))).toEqual([]);
    await undo();
    expect(await readdir(hostPath(host, '/var/lib/vz/images'))).toEqual([]);
  });

  it('takes an empty directory that exists, and undoes it by emptying it again', async () => {
    await mkdir(hostPath(host, ROOTFS), { recursive: true });
    const undo = await makeVolumeDirectory(host, 200, subvol(ROOTFS));
    await writeFile(hostPath(host, `${ROOTFS}/unpacked`), 'x');
    await undo();
    expect(await readdir(hostPath(host, ROOTFS))).toEqual([]);
  });

  it('refuses a directory with content, and a volume that is not a directory', async () => {
    await mkdir(hostPath(host, `${ROOTFS}/etc`), { recursive: true });
    await expect(makeVolumeDirectory(host, 200, subvol(ROOTFS))).rejects.toThrow(
      `volume local:200/subvol-200-disk-0 already exists at ${ROOTFS} and is not empty`,
    );
    await expect(makeVolumeDirectory(host, 200, { ...subvol('/var/lib/vz/images/200/vm-200-disk-0.raw'), format: 'raw' })).rejects.toThrow(
      'CT 200: volume rootfs is raw; the native driver keeps container volumes as directories (subvol)',
    );
  });

  it('removes a volume of the container, and a missing one quietly', async () => {
    await mkdir(hostPath(host, `${ROOTFS}/etc`), { recursive: true });
    await removeVolume(host, 200, subvol(ROOTFS), signal);
    await removeVolume(host, 200, subvol(ROOTFS), signal);
    expect(await readdir(hostPath(host, '/var/lib/vz/images/200'))).toEqual([]);
  });

  it('refuses to remove a folder at the top of the host root, or one not named for the container', async () => {
    await mkdir(hostPath(host, '/var/lib/vz/images/2000/subvol-2000-disk-0'), { recursive: true });
    await expect(removeVolume(host, 200, subvol('/var'), signal)).rejects.toThrow('refusing to remove /var: not a volume of CT 200');
    await expect(removeVolume(host, 200, subvol('/var/lib/vz/images/2000/subvol-2000-disk-0'), signal)).rejects.toThrow(
      'not a volume of CT 200',
    );
    await expect(removeVolume(host, 200, subvol('/var/lib/vz/images'), signal)).rejects.toThrow('not a volume of CT 200');
    expect(await readdir(hostPath(host, '/var/lib/vz/images/2000'))).toEqual(['subvol-2000-disk-0']);
  });
});
