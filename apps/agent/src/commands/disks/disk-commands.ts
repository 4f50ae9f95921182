import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import type { Disk } from '@corral/protocol';
import { CommandFailure } from '../../host/command-failure.js';
import { findProgram } from '../../host/find-program.js';
import { lastWords, runChecked, runProgram } from '../../host/run-program.js';
import type { AreaHandlers } from '../area-handlers.js';
import { isWholeDisk, LSBLK_COLUMNS, parseBlkidExport, parseLsblk, parseSmartHealth, toDisk, type BlockDevice } from './block-devices.js';

/**
 * PVE's `/nodes/{node}/disks/list` and `initgpt`. Disks are the kernel's, whatever the host root.
 * An empty GPT is not "in use", so initialising a disk twice is allowed, as in PVE: it only writes
 * a new empty table with a new GUID.
 */
export function diskCommands(): AreaHandlers<'node.disks.list' | 'node.disks.init-gpt'> {
  return {
    'node.disks.list': async (_params, { signal }) => {
      const disks = (await readBlockDevices(signal)).filter(isWholeDisk);
      const smartctl = await findProgram('smartctl');
      return Promise.all(
        disks.map(async (device) => {
          const probed = await probeWhenUnknown(device, signal);
          return toDisk(probed, smartctl === undefined || device.type === 'loop' ? undefined : await smartHealth(device.path, signal));
        }),
      );
    },

    'node.disks.init-gpt': async ({ disk, uuid }, { signal, log }) => {
      // A /dev/disk/by-id link names the same disk as lsblk's /dev/sdX.
      const path = await realpath(disk).catch((): never => {
        throw new CommandFailure('failed', `disk '${disk}' does not exist`);
      });
      const device = await wholeDisk(disk, path, signal);
      const found: Disk = toDisk(await probeWhenUnknown(device, signal), undefined);
      if (found.used !== undefined || found.mounted)
        throw new CommandFailure('failed', `disk '${disk}' is in use (${found.used ?? 'mounted'})`);
      const partitions = await tablePartitions(path, signal);
      if (partitions > 0)
        throw new CommandFailure(
          'failed',
          `disk '${disk}' is in use (its partition table has ${partitions} partition${partitions === 1 ? '' : 's'})`,
        );
      await assertNotBusy(disk, path);

      await runChecked('sgdisk', ['--zap-all', '--clear', `--disk-guid=${uuid ?? 'R'}`, path], { signal, onLine: log });
      await rereadPartitionTable(path, signal, log);
      return null;
    },
  };
}

async function readBlockDevices(signal: AbortSignal): Promise<BlockDevice[]> {
  const output = await runProgram('lsblk', ['-J', '-b', '-o', LSBLK_COLUMNS], { signal });
  if (output.code !== 0) throw new CommandFailure('failed', `lsblk failed: ${lastWords(output)}`);
  return parseLsblk(output.stdout);
}

async function wholeDisk(disk: string, path: string, signal: AbortSignal): Promise<BlockDevice> {
  const output = await runProgram('lsblk', ['-J', '-b', '-o', LSBLK_COLUMNS, path], { signal });
  if (output.code !== 0) throw new CommandFailure('failed', `'${disk}' is not a block device (${lastWords(output)})`);
  const [device] = parseLsblk(output.stdout);
  if (device === undefined || !isWholeDisk(device))
    throw new CommandFailure('failed', `'${disk}' is not a whole disk (lsblk type ${device?.type || 'unknown'})`);
  return device;
}

/**
 * Where lsblk knows neither a partition table nor a file system, ask libblkid directly: without
 * udev (containers, minimal VMs) lsblk reports neither, even for a disk that has both.
 */
async function probeWhenUnknown(device: BlockDevice, signal: AbortSignal): Promise<BlockDevice> {
  if (device.pttype !== undefined || device.fstype !== undefined) return device;
  const output = await runProgram('blkid', ['-p', '-o', 'export', device.path], { signal });
  if (output.code !== 0) return device; // 2: nothing found
  const found = parseBlkidExport(output.stdout);
  return { ...device, pttype: found.get('PTTYPE'), fstype: found.get('TYPE') };
}

/** Partitions in the table on the disk itself, which the kernel may not have read yet (sgdisk -n without a re-read). */
async function tablePartitions(path: string, signal: AbortSignal): Promise<number> {
  const output = await runProgram('partx', ['-g', '-o', 'NR', path], { signal });
  if (output.code !== 0) return 0; // no partition table at all
  return output.stdout.split('\n').filter((line) => line.trim() !== '').length;
}

/** An exclusive open fails while the kernel has the disk in use: mounted, or claimed by device mapper, RAID or a guest. */
async function assertNotBusy(disk: string, path: string): Promise<void> {
  try {
    await (await open(path, constants.O_RDONLY | constants.O_EXCL)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EBUSY')
      throw new CommandFailure('failed', `disk '${disk}' is in use (the kernel holds it open exclusively)`);
    throw error;
  }
}

/** Tell the kernel and udev about the new table; the table is written whether or not they listen. */
async function rereadPartitionTable(path: string, signal: AbortSignal, log: (line: string) => void): Promise<void> {
  const reread = await runProgram('blockdev', ['--rereadpt', path], { signal });
  if (reread.code !== 0) log(`the kernel did not re-read the partition table of ${path}: ${lastWords(reread)}`);
  if ((await findProgram('udevadm')) !== undefined) await runProgram('udevadm', ['settle', '--timeout=30'], { signal });
}

/** SMART's verdict; a disk without SMART, or a smartctl that hangs on a dying disk, gives no verdict rather than no list. */
async function smartHealth(path: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    return parseSmartHealth((await runProgram('smartctl', ['-H', path], { signal, timeoutMs: 30_000 })).stdout);
  } catch (error) {
    if (signal.aborted) throw error;
    return undefined;
  }
}
