import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestVolume } from '@corral/protocol';
import { openHost } from '../../../host/host.js';
import type { CommandContext } from '../../command-context.js';
import { LxcVolumeOperations } from './lxc-volume-operations.js';

// Container volumes as directories in a temporary host root; whether the container runs is the test's to say.

const GIB = 1024 ** 3;
const volume = (vmid: number, key: string, name: string, root = '/var/lib/vz', storage = 'local'): GuestVolume => ({
  key,
  volid: `${storage}:${vmid}/${name}`,
  path: `${root}/images/${vmid}/${name}`,
  format: 'subvol',
  size: 2 * GIB,
});

describe('the volumes of a native container', () => {
  let dir: string;
  let running: boolean;
  let operations: LxcVolumeOperations;
  const log: string[] = [];
  const context: CommandContext = { signal: new AbortController().signal, log: (line) => log.push(line) };
  const mp0 = volume(200, 'mp0', 'subvol-200-disk-1');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-lxc-volumes-'));
    operations = new LxcVolumeOperations(await openHost(dir), async () => running);
  });
  beforeEach(() => {
    running = false;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('allocates an empty directory, refuses one with content, and a resize only checks it is there', async () => {
    await operations.allocate({ type: 'lxc', vmid: 200, volumes: [mp0] }, context);
    expect((await stat(join(dir, mp0.path))).isDirectory()).toBe(true);
    await writeFile(join(dir, mp0.path, 'data'), 'kept');
    await expect(operations.allocate({ type: 'lxc', vmid: 200, volumes: [mp0] }, context)).rejects.toThrow('already exists');
    await operations.resize({ type: 'lxc', vmid: 200, volume: mp0, size: 3 * GIB }, context);
    await expect(
      operations.resize({ type: 'lxc', vmid: 200, volume: volume(200, 'mp1', 'subvol-200-disk-7'), size: GIB }, context),
    ).rejects.toThrow('is missing');
  });

  it("refuses to move a running container's volume (PVE's words), copies a stopped one's and removes the source with delete", async () => {
    const target = volume(200, 'mp0', 'subvol-200-disk-1', '/srv/big', 'big');
    running = true;
    await expect(operations.move({ type: 'lxc', vmid: 200, source: mp0, target, targetVmid: 200, delete: true }, context)).rejects.toThrow(
      'CT 200 is running: cannot move volumes of a running container',
    );
    await expect(stat(join(dir, target.path))).rejects.toMatchObject({ code: 'ENOENT' });
    running = false;
    await operations.move({ type: 'lxc', vmid: 200, source: mp0, target, targetVmid: 200, delete: true }, context);
    expect(await readFile(join(dir, target.path, 'data'), 'utf8')).toBe('kept');
    await expect(stat(join(dir, mp0.path))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a failed copy removes the target directory it made', async () => {
    const missing = volume(200, 'mp2', 'subvol-200-disk-2');
    const target = volume(200, 'mp2', 'subvol-200-disk-2', '/srv/big', 'big');
    await mkdir(join(dir, '/srv/big/images/200'), { recursive: true });
    await expect(
      operations.move({ type: 'lxc', vmid: 200, source: missing, target, targetVmid: 200, delete: false }, context),
    ).rejects.toThrow('is missing');
    await expect(stat(join(dir, target.path))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('frees a volume with its content', async () => {
    const target = volume(200, 'mp0', 'subvol-200-disk-1', '/srv/big', 'big');
    await operations.free({ type: 'lxc', vmid: 200, volumes: [target] }, context);
    await expect(stat(join(dir, target.path))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
