import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '@corral/protocol';
import type { CommandContext } from '../../drivers/command-context.js';
import { runChecked, runProgram } from '../../host/run-program.js';
import { storageCommands } from './storage-commands.js';

// Real LVM and a real mount on loop devices: needs root, lvm2 and e2fsprogs (tools/test-deps.sh).

const signal = new AbortController().signal;
const context: CommandContext = { signal, log: () => undefined };
const scan = () => storageCommands()['node.storage.scan']({}, context);
const VG = `corral-test-${process.pid}`;

describe('node.storage.scan on this machine', () => {
  let dir: string;
  const loops: string[] = [];
  const mounts: string[] = [];

  async function attach(name: string): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, '');
    await truncate(file, 64 * 1024 * 1024);
    const device = (await runChecked('losetup', ['--find', '--show', file], { signal })).stdout.trim();
    loops.push(device);
    return device;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-storage-'));
  });

  afterAll(async () => {
    for (const target of mounts) await runProgram('umount', [target], { signal });
    await runProgram('vgremove', ['-f', VG], { signal });
    for (const device of loops) {
      await runProgram('pvremove', ['-f', device], { signal });
      await runProgram('losetup', ['-d', device], { signal });
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('finds a volume group, and no longer after it is removed', async () => {
    const device = await attach('pv.img');
    await runChecked('vgcreate', [VG, device], { signal });
    const found = await scan();
    expect(COMMANDS['node.storage.scan'].result.parse(found)).toEqual(found);
    const vg = found.lvm.find((entry) => entry.vg === VG);
    expect(vg?.size).toBeGreaterThan(32 * 1024 * 1024); // the device less LVM's metadata, in whole 4 MiB extents
    expect((vg?.size ?? 1) % (4 * 1024 * 1024)).toBe(0);
    expect(vg?.size).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(vg?.free).toBe(vg?.size);

    await runChecked('vgremove', ['-f', VG], { signal });
    expect((await scan()).lvm.find((entry) => entry.vg === VG)).toBeUndefined();
  }, 60_000);

  it('lists a mounted ext4 file system as a directory and leaves out a tmpfs', async () => {
    const device = await attach('fs.img');
    await runChecked('mkfs.ext4', ['-q', device], { signal });
    const target = join(dir, 'mnt');
    const scratch = join(dir, 'tmpfs');
    await mkdir(target);
    await mkdir(scratch);
    await runChecked('mount', [device, target], { signal });
    mounts.push(target);
    await runChecked('mount', ['-t', 'tmpfs', 'tmpfs', scratch], { signal });
    mounts.push(scratch);

    const { directories } = await scan();
    const mounted = directories.find((entry) => entry.path === target);
    expect(mounted).toMatchObject({ device, fsType: 'ext4' });
    expect(mounted?.free).toBeLessThan(mounted?.size ?? 0);
    expect(directories.find((entry) => entry.path === scratch)).toBeUndefined();
  }, 60_000);
});
