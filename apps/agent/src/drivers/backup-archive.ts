import type { BackupCompression, GuestType } from '@corral/protocol';
import { mkdir, mkdtemp, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CommandFailure } from '../host/command-failure.js';
import { runProgram, lastWords } from '../host/run-program.js';
import type { CommandContext } from './command-context.js';

/*
 * vzdump archives as the native driver writes and reads them (the layout is libs/protocol's
 * guest-backup.ts and docs/backups.md "Archive format"): one GNU tar file in a storage's `dump/`,
 * compressed as its name says, its guest's config its first member so that reading it for a
 * restore stops there rather than decompressing the whole archive:
 * - a VM's: `qemu-server.conf`, then one `<key>.qcow2` per disk;
 * - a container's: `./etc/vzdump/pct.conf`, then its root file system at `./`.
 * Beside it, as PVE: its log `<archive without .tar*>.log` and its notes `<archive>.notes`.
 */

/** An archive's name below the storage path: `dump/vzdump-<type>-<vmid>-<local time>.tar[.gz|.zst]` (the protocol's `BackupFile`). */
export type BackupFile = string;

/** Each guest type's config file in its archive: read for a restore, written first. */
export const CONFIG_MEMBERS: Readonly<Record<GuestType, string>> = { qemu: 'qemu-server.conf', lxc: './etc/vzdump/pct.conf' };

/** The archive's name ends in its compression; GNU tar runs the compressor itself (no pipe of ours, no shell). */
const COMPRESSIONS: Readonly<Record<BackupCompression, { readonly extension: string; readonly tarFlags: readonly string[] }>> = {
  none: { extension: '.tar', tarFlags: [] },
  gzip: { extension: '.tar.gz', tarFlags: ['--gzip'] },
  zstd: { extension: '.tar.zst', tarFlags: ['--zstd'] },
};

/** Type and vmid of a `BackupFile`, which the protocol has checked in full. */
const BACKUP_NAME = /^dump\/vzdump-(qemu|lxc)-(\d+)-/;

/** Writing or unpacking a few hundred GiB; the request's own signal stops it sooner. */
const ARCHIVE_TIMEOUT_MS = 24 * 3600_000;
/** A config file is at most this long (the protocol's limit of `config`). */
const CONFIG_LIMIT = 1_048_576;
/** File capabilities survive with user attributes, as PVE's tar options keep them. */
const XATTRS = ['--xattrs', '--xattrs-include=user.*', '--xattrs-include=security.capability'];

/** PVE's name of a backup made at `at`, in the node's local time (storage-content.ts reads it back so). */
export function backupFileName(type: GuestType, vmid: number, compress: BackupCompression, at: Date): BackupFile {
  const date = `${at.getFullYear()}_${two(at.getMonth() + 1)}_${two(at.getDate())}`;
  const time = `${two(at.getHours())}_${two(at.getMinutes())}_${two(at.getSeconds())}`;
  return `dump/vzdump-${type}-${vmid}-${date}-${time}${COMPRESSIONS[compress].extension}`;
}

/**
 * The name of a backup starting now, free in the storage's `dump/`: names carry the second a backup
 * started, so a second backup of the guest in the same second (two `vzdump --all` one after the
 * other) waits for the next second rather than colliding with the first's archive or log. Backups
 * of one guest run one at a time, so the name stays free until the archive is written.
 */
export async function newBackupFile(
  storagePath: string,
  type: GuestType,
  vmid: number,
  compress: BackupCompression,
  signal: AbortSignal,
): Promise<BackupFile> {
  for (;;) {
    const at = new Date();
    const file = backupFileName(type, vmid, compress, at);
    const stem = basename(file).replace(/\.tar(?:\.gz|\.zst)?$/, '.');
    const taken = (await readdir(join(storagePath, 'dump')).catch(() => [])).some((name) => name.startsWith(stem));
    if (!taken) return file;
    await delay(1000 - at.getMilliseconds(), undefined, { signal });
  }
}

/**
 * A new, empty, hidden folder in `dump/` beside the archive, for what goes into it (a config, a
 * VM's disk images) or comes out of it for a restore; unique, as two restores may read one archive
 * at once. The caller removes it whatever the outcome.
 */
export async function makeBackupStaging(storagePath: string, file: BackupFile): Promise<string> {
  const archive = join(storagePath, file);
  await mkdir(dirname(archive), { recursive: true });
  return mkdtemp(join(dirname(archive), `.${basename(archive)}.staging-`));
}

export interface ArchiveSource {
  /** An absolute folder tar changes into. */
  readonly dir: string;
  /** Names below it, archived under those names, in order. */
  readonly members: readonly string[];
}

export interface WriteArchiveOptions {
  /** The storage's folder, resolved under the host root. */
  readonly storagePath: string;
  readonly file: BackupFile;
  readonly compress: BackupCompression;
  /** Archived in order: the config's source first (see the note at the top). */
  readonly sources: readonly ArchiveSource[];
  /** GNU tar patterns, anchored at the members' names as PVE's (`./tmp/?*`). */
  readonly exclude?: readonly string[];
  readonly signal: AbortSignal;
  /** tar's own lines (warnings, the totals). */
  readonly log?: (line: string) => void;
}

/**
 * Writes the archive under a hidden temporary name in `dump/`, flushes it to disk and only then
 * renames it into place: a failed or stopped backup leaves nothing that looks like one. Resolves
 * with the archive's size in bytes. An archive of that name is never overwritten.
 */
export async function writeArchive({
  storagePath,
  file,
  compress,
  sources,
  exclude = [],
  signal,
  log,
}: WriteArchiveOptions): Promise<number> {
  const target = join(storagePath, file);
  // Hidden, so that storage content lists leave it out.
  const temporary = join(dirname(target), `.${basename(target)}.tmp`);
  await mkdir(dirname(target), { recursive: true });
  if (await exists(target)) throw new Error(`backup archive ${file} exists already`);
  const members = sources.flatMap(({ dir, members: names }) => ['-C', resolve(dir), ...names.map(notAnOption)]);
  const args = [
    '--create',
    '--file',
    temporary,
    '--numeric-owner',
    ...XATTRS,
    '--sparse',
    ...COMPRESSIONS[compress].tarFlags,
    '--anchored',
    ...exclude.map((pattern) => `--exclude=${pattern}`),
    ...members,
  ];
  try {
    const output = await runProgram('tar', args, { signal, onLine: log, timeoutMs: ARCHIVE_TIMEOUT_MS });
    // Exit 1 on create: a file changed while it was read (a running container's); the archive is whole, as PVE takes it.
    if (output.code !== 0 && output.code !== 1)
      throw new CommandFailure('failed', `tar failed (exit code ${output.code}): ${lastWords(output)}`);
    await flush(temporary);
    await rename(temporary, target);
    await flush(dirname(target));
    return (await stat(target)).size;
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The backup's log and notes beside its archive, named as PVE names them (volume-delete.ts removes them with it). */
export async function writeBackupSidecars(
  storagePath: string,
  file: BackupFile,
  { log, notes }: { readonly log: readonly string[]; readonly notes?: string },
): Promise<void> {
  const archive = join(storagePath, file);
  const logFile = archive.replace(/\.tar(?:\.gz|\.zst)?$/, '.log');
  await writeFile(logFile, log.map((line) => `${line}\n`).join(''));
  if (notes !== undefined) await writeFile(`${archive}.notes`, notes);
}

/** A command context whose log lines also go to `lines`, stamped with the local time as PVE's `.log` has them. */
export function captureLog(context: CommandContext): { readonly context: CommandContext; readonly lines: readonly string[] } {
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(`${localStamp(new Date())} ${line}`);
    context.log(line);
  };
  return { context: { signal: context.signal, log }, lines };
}

/** One member of an archive as text (a config file): refused when missing or longer than 1 MiB. */
export async function readArchiveMember(archivePath: string, member: string, signal: AbortSignal): Promise<string> {
  // `--occurrence`: tar stops at the first match instead of reading the archive to its end.
  const args = ['--extract', '--to-stdout', '--file', archivePath, ...tarFlagsOf(archivePath), '--occurrence=1', '--', member];
  const output = await runProgram('tar', args, { signal, timeoutMs: ARCHIVE_TIMEOUT_MS, maxOutput: CONFIG_LIMIT }).catch(
    (error: unknown) => {
      if (error instanceof CommandFailure && error.message.includes('wrote more than'))
        throw new Error(`${member} in ${basename(archivePath)} is longer than ${CONFIG_LIMIT} bytes`);
      throw error;
    },
  );
  if (/Not found in archive/.test(output.stderr)) throw new Error(`backup archive ${basename(archivePath)} holds no ${member}`);
  if (output.code !== 0)
    throw new CommandFailure('failed', `tar could not read ${basename(archivePath)} (exit code ${output.code}): ${lastWords(output)}`);
  return output.stdout;
}

export interface ExtractOptions {
  /** Only these members (default: all). */
  readonly members?: readonly string[];
  /** GNU tar patterns, anchored as in `writeArchive`. */
  readonly exclude?: readonly string[];
  readonly signal: AbortSignal;
  readonly log?: (line: string) => void;
}

/** Unpacks an archive into an existing folder, owners numeric and modes as archived; the caller removes what it unpacked when this fails. */
export async function extractArchive(
  archivePath: string,
  into: string,
  { members = [], exclude = [], signal, log }: ExtractOptions,
): Promise<void> {
  const args = [
    '--extract',
    '--file',
    archivePath,
    ...tarFlagsOf(archivePath),
    '--numeric-owner',
    ...XATTRS,
    '--same-permissions',
    '-C',
    resolve(into),
    '--anchored',
    ...exclude.map((pattern) => `--exclude=${pattern}`),
    '--',
    ...members,
  ];
  const output = await runProgram('tar', args, { signal, onLine: log, timeoutMs: ARCHIVE_TIMEOUT_MS });
  if (output.code !== 0)
    throw new CommandFailure('failed', `tar could not unpack ${basename(archivePath)} (exit code ${output.code}): ${lastWords(output)}`);
}

/** `guest.backup.config`: the guest type and vmid an archive's name says, and the config it holds. */
export async function readBackupConfig(
  storagePath: string,
  file: BackupFile,
  signal: AbortSignal,
): Promise<{ type: GuestType; vmid: number; config: string }> {
  const { type, vmid } = backupOwner(file);
  const archive = join(storagePath, file);
  if (!(await exists(archive))) throw new Error(`backup archive ${file} does not exist`);
  const config = await readArchiveMember(archive, CONFIG_MEMBERS[type], signal);
  return { type, vmid, config };
}

/** The guest type and vmid an archive's name says. */
export function backupOwner(file: BackupFile): { type: GuestType; vmid: number } {
  const match = BACKUP_NAME.exec(file);
  if (match === null) throw new CommandFailure('invalid-params', `${file} is not the name of a backup archive`);
  return { type: match[1] === 'qemu' ? 'qemu' : 'lxc', vmid: Number(match[2]) };
}

/** A `-C` after `--` would be a name to tar, so the names go without `--`: none may look like an option. */
function notAnOption(member: string): string {
  if (member.startsWith('-')) throw new Error(`archive member ${member} starts with '-'`);
  return member;
}

/** The tar flags that decompress an archive, by its name. */
function tarFlagsOf(archivePath: string): readonly string[] {
  const compress =
    (Object.keys(COMPRESSIONS) as BackupCompression[]).find(
      (each) => each !== 'none' && archivePath.endsWith(COMPRESSIONS[each].extension),
    ) ?? 'none';
  return COMPRESSIONS[compress].tarFlags;
}

/** fsync of a file or a folder (a rename is durable once its folder is flushed). */
async function flush(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function localStamp(at: Date): string {
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

function two(value: number): string {
  return String(value).padStart(2, '0');
}
