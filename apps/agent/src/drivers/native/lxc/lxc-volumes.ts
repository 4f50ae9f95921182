import type { Stats } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { GuestVolume } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { lastWords, runChecked, runProgram } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { copyingVolume, extractingArchive, volumeExists } from '../../guest-messages.js';

/*
 * Container volumes are directories (`subvol`) on the host. Their `size` is recorded in the
 * control plane's configuration only: a plain directory has no quota to enforce it with.
 */

/** Undoes one step of a command that failed later, so that a failed create or clone leaves nothing behind. */
export type Undo = () => Promise<void>;

/** Unpacking or copying a root file system of a few GiB on a slow disk. */
const BULK_TIMEOUT_MS = 30 * 60_000;
/** Clean-up runs after the request's own signal may have fired, so it gets a signal of its own. */
const CLEANUP_TIMEOUT_MS = 5 * 60_000;

/**
 * Makes the directory of a volume of CT `vmid`, refusing one that exists with content: it is
 * another guest's, or left over. Returns how to undo it: remove what it created, or empty again a
 * directory that was there empty.
 */
export async function makeVolumeDirectory(host: Host, vmid: number, volume: GuestVolume): Promise<Undo> {
  if (volume.format !== 'subvol')
    throw new Error(
      `CT ${vmid}: volume ${volume.key} is ${volume.format}; the native driver keeps container volumes as directories (subvol)`,
    );
  const path = hostPath(host, volume.path);
  const entries = await readdir(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (entries !== undefined && entries.length > 0) throw new Error(volumeExists('lxc', vmid, volume));
  if (entries !== undefined) {
    return async () => {
      for (const entry of await readdir(path)) await removeTree(join(path, entry), cleanupSignal());
    };
  }
  return makeFolder(path);
}

/** Makes a folder and its missing parents; the undo removes the first one it made. */
export async function makeFolder(path: string): Promise<Undo> {
  const made = await mkdir(path, { recursive: true });
  return async () => {
    if (made !== undefined) await removeTree(made, cleanupSignal()); // undefined: another made it meanwhile
  };
}

/**
 * Unpacks a template archive into an empty root directory. GNU tar recognises the compression
 * (gzip, xz, zstd) from the archive's content and runs its program (`zstd` for `.tar.zst`); owners
 * stay numeric, as the container's own /etc/passwd means them, and file capabilities are kept.
 */
export async function unpackTemplate(
  host: Host,
  archive: string,
  rootfs: string,
  context: CommandContext,
  options: { ignoreErrors: boolean } = { ignoreErrors: false },
): Promise<void> {
  const file = hostPath(host, archive);
  if ((await statOf(file))?.isFile() !== true) throw new Error(`template archive ${archive} does not exist`);
  context.log(extractingArchive(archive));
  const args = [
    '-x',
    '-C',
    rootfs,
    '--numeric-owner',
    '--xattrs',
    '--xattrs-include=user.*',
    '--xattrs-include=security.capability',
    '--totals',
    '-f',
    file,
  ];
  const run = { signal: context.signal, onLine: context.log, timeoutMs: BULK_TIMEOUT_MS };
  if (!options.ignoreErrors) {
    await runChecked('tar', args, run);
    return;
  }
  // PVE's ignore-unpack-errors: tar's complaints stay in the task log, the create goes on.
  const output = await runProgram('tar', args, run);
  if (output.code !== 0) context.log(`WARN: unpacking ${archive} ended with errors (ignored): ${lastWords(output)}`);
}

/**
 * Copies a volume's whole tree into another's empty directory: owners, modes, device nodes,
 * symbolic links, hard links, ACLs and extended attributes (`cp -a`), sharing blocks where the
 * file system can (`--reflink=auto`).
 */
export async function copyVolume(host: Host, from: GuestVolume, to: GuestVolume, context: CommandContext): Promise<void> {
  const source = hostPath(host, from.path);
  if ((await statOf(source))?.isDirectory() !== true) throw new Error(`volume ${from.volid} is missing: ${from.path} is not a directory`);
  context.log(copyingVolume(from, to));
  await runChecked('cp', ['-a', '--reflink=auto', '--', `${source}/.`, hostPath(host, to.path)], {
    signal: context.signal,
    timeoutMs: BULK_TIMEOUT_MS,
  });
}

/**
 * Removes a volume of CT `vmid` (a directory tree or an image file); a missing one is fine. A last
 * line of defence against a wrong path from a bug anywhere: never the host root or a folder at its
 * top, and only a volume whose name carries the vmid, as PVE names them (`subvol-200-disk-0`).
 */
export async function removeVolume(host: Host, vmid: number, volume: GuestVolume, signal: AbortSignal): Promise<void> {
  const path = hostPath(host, volume.path);
  const depth = relative(host.root, path)
    .split(sep)
    .filter((part) => part !== '').length;
  if (depth < 2 || !new RegExp(`(^|\\D)${vmid}(\\D|$)`).test(basename(path)))
    throw new Error(`refusing to remove ${volume.path}: not a volume of CT ${vmid}`);
  await removeTree(path, signal);
}

/**
 * `rm -r` that stays on the tree's own file system: a mount inside it (a bind mount left behind)
 * makes it fail rather than empty what is mounted there.
 */
export async function removeTree(path: string, signal: AbortSignal): Promise<void> {
  await runChecked('rm', ['-r', '-f', '--one-file-system', '--', path], { signal, timeoutMs: BULK_TIMEOUT_MS });
}

function cleanupSignal(): AbortSignal {
  return AbortSignal.timeout(CLEANUP_TIMEOUT_MS);
}

/** What is at a path, or undefined when nothing (or nothing the agent may see) is. */
export async function statOf(path: string): Promise<Stats | undefined> {
  return stat(path).catch(() => undefined);
}
