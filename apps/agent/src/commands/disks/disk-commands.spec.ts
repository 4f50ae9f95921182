import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '@corral/protocol';
import type { CommandContext } from '../../drivers/command-context.js';
import { runChecked, runProgram } from '../../host/run-program.js';
import { diskCommands } from './disk-commands.js';

// Real block devices: sparse files attached as loop devices, which needs root (and fails without it).

const signal = new AbortController().signal;
const logged: string[] = [];
const context: CommandContext = { signal, log: (line) => logged.push(line) };
const disks = diskCommands();
const SIZE = 64 * 1024 * 1024;

async function attach(file: string): Promise<string> {
  await writeFile(file, '');
  await truncate(file, SIZE);
  return (await runChecked('losetup', ['--find', '--show', '--partscan', file], { signal })).stdout.trim();
}

async function listed(devpath: string) {
  const list = await disks['node.disks.list']({}, context);
  expect(COMMANDS['node.disks.list'].result.parse(list)).toEqual(list);
  return list.find((disk) => disk.devpath === devpath);
}

async function tableGuid(devpath: string): Promise<string> {
  return (await runChecked('blkid', ['-p', '-s', 'PTUUID', '-o', 'value', devpath], { signal })).stdout.trim();
}

// Loop devices, sgdisk and the kernel's rereads: slow on a loaded machine, never hung.
jest.setTimeout(60_000);

describe('node.disks on loop devices', () => {
  let dir: string;
  let blank: string;
  let formatted: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-disks-'));
    blank = await attach(join(dir, 'blank.img'));
    formatted = await attach(join(dir, 'formatted.img'));
    await runChecked('mkfs.ext4', ['-q', formatted], { signal });
  });

  afterAll(async () => {
    for (const device of [blank, formatted]) if (device) await runProgram('losetup', ['-d', device], { signal });
    await rm(dir, { recursive: true, force: true });
  });

  it('lists an attached loop device as a whole disk, unused, without GPT', async () => {
    expect(blank).toMatch(/^\/dev\/loop[0-9]+$/);
    expect(await listed(blank)).toEqual({ devpath: blank, size: SIZE, type: 'unknown', gpt: false, mounted: false });
  });

  it('writes a GPT with the GUID asked for, and may write a new one over an empty GPT', async () => {
    await expect(disks['node.disks.init-gpt']({ disk: blank, uuid: '0b7a7f3c-1d2e-4f5a-8b9c-0d1e2f3a4b5c' }, context)).resolves.toBeNull();
    expect(await listed(blank)).toMatchObject({ gpt: true, mounted: false });
    expect((await listed(blank))?.used).toBeUndefined();
    expect(await tableGuid(blank)).toBe('0b7a7f3c-1d2e-4f5a-8b9c-0d1e2f3a4b5c');

    await disks['node.disks.init-gpt']({ disk: blank }, context);
    const second = await tableGuid(blank);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).not.toBe('0b7a7f3c-1d2e-4f5a-8b9c-0d1e2f3a4b5c');
  });

  it('refuses a disk whose table has a partition, before and after the kernel read it', async () => {
    await runChecked('sgdisk', ['-n', '1:0:+8M', blank], { signal });
    await expect(disks['node.disks.init-gpt']({ disk: blank }, context)).rejects.toMatchObject({
      code: 'failed',
      message: `disk '${blank}' is in use (its partition table has 1 partition)`,
    });

    await runChecked('partx', ['-a', blank], { signal });
    expect(await listed(blank)).toMatchObject({ gpt: true, used: 'partitions', mounted: false });
    await expect(disks['node.disks.init-gpt']({ disk: blank }, context)).rejects.toMatchObject({
      code: 'failed',
      message: `disk '${blank}' is in use (partitions)`,
    });
    await expect(disks['node.disks.init-gpt']({ disk: `${blank}p1` }, context)).rejects.toMatchObject({
      code: 'failed',
      message: `'${blank}p1' is not a whole disk (lsblk type part)`,
    });
  });

  it('refuses a disk with a file system on it', async () => {
    expect(await listed(formatted)).toMatchObject({ gpt: false, used: 'ext4', mounted: false });
    await expect(disks['node.disks.init-gpt']({ disk: formatted }, context)).rejects.toMatchObject({
      code: 'failed',
      message: `disk '${formatted}' is in use (ext4)`,
    });
  });

  it('refuses what is not a disk, naming it', async () => {
    await expect(disks['node.disks.init-gpt']({ disk: '/dev/corral-no-such-disk' }, context)).rejects.toMatchObject({
      code: 'failed',
      message: "disk '/dev/corral-no-such-disk' does not exist",
    });
    await expect(disks['node.disks.init-gpt']({ disk: '/dev/null' }, context)).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/^'\/dev\/null' is not a block device \(lsblk: \/dev\/null: not a block device\)$/),
    });
  });
});
