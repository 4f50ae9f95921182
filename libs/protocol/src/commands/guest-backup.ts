import { z } from 'zod';
import { Bytes, Vmid } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';
import { ConfigKey, GuestSpec, GuestType, HostFilePath } from './guest.js';

/*
 * Backups and restores. The control plane runs a
 * vzdump task: for each guest a `guest.backup` on the guest's node, which writes one archive into
 * the `dump/` folder of a directory storage. A restore reads the archive's config with
 * `guest.backup.config`, checks and places it like a new guest, then sends `guest.restore`.
 *
 * An archive is a tar file, compressed as its name says (`.tar`, `.tar.gz`, `.tar.zst`):
 * - a VM's (`vzdump-qemu-<vmid>-<time>.tar*`): `qemu-server.conf` (the config as PVE writes it),
 *   then one `<key>.qcow2` per disk (not CD-ROMs) holding the disk's content at the backup's point
 *   in time (compact: only allocated clusters);
 * - a container's (`vzdump-lxc-<vmid>-<time>.tar*`), as PVE's: the root file system at `./`, with
 *   numeric owners, and its config at `./etc/vzdump/pct.conf`.
 */

/** PVE's vzdump modes. `snapshot` never stops a running guest; `suspend` pauses it for the copy; `stop` stops it and starts it again after. */
export const BackupMode = z.enum(['snapshot', 'suspend', 'stop']);
export type BackupMode = z.infer<typeof BackupMode>;

/** How the archive is compressed: none (`.tar`), gzip (`.tar.gz`) or zstd (`.tar.zst`). */
export const BackupCompression = z.enum(['none', 'gzip', 'zstd']);
export type BackupCompression = z.infer<typeof BackupCompression>;

/** An archive's file name in a storage's `dump/` folder: `vzdump-<qemu|lxc>-<vmid>-<YYYY_MM_DD-HH_MM_SS>.tar[.gz|.zst]` (the node's local time). */
export const BackupFile = z
  .string()
  .regex(
    /^dump\/vzdump-(?:qemu|lxc)-\d{3,9}-\d{4}_\d{2}_\d{2}-\d{2}_\d{2}_\d{2}\.tar(?:\.gz|\.zst)?$/,
    'must be dump/vzdump-<qemu|lxc>-<vmid>-<YYYY_MM_DD-HH_MM_SS>.tar, .tar.gz or .tar.zst',
  );
export type BackupFile = z.infer<typeof BackupFile>;

/** The storage that holds the archive (its path resolved under the agent's host root), as the storage commands take it. */
const Storage = { path: HostFilePath, mountpoint: z.boolean() };

export const guestBackup = {
  description:
    "Write a backup archive of the guest into `<storage path>/dump/`, named after the guest and the node's local time at the start, with `.log` (the backup's log) and, when given, `.notes` beside it. The archive is written under a hidden temporary name and renamed only when complete: a failed or stopped backup leaves nothing that looks like a backup. `snapshot` of a running VM copies its disks from a point-in-time snapshot while it runs (QEMU's backup job); of a running container on a directory storage it falls back to `suspend` (freeze), saying so in the log, as PVE does. A guest that was running runs again at the end, whatever the outcome.",
  params: z.strictObject({
    guest: GuestSpec,
    /** The config file as PVE writes it, which the archive holds (rendered by the control plane). */
    config: z.string().max(1_048_576),
    mode: BackupMode,
    compress: BackupCompression,
    storage: z.strictObject(Storage),
    /** The text of `<archive>.notes` (PVE's `notes-template`, already filled in). */
    notes: z.string().max(65_536).optional(),
  }),
  result: z.strictObject({
    /** The archive, below the storage path. */
    file: BackupFile,
    /** Its size in bytes. */
    size: Bytes,
    /** The mode used (`suspend` where `snapshot` fell back). */
    mode: BackupMode,
  }),
} satisfies CommandDefinition;

export const guestBackupConfig = {
  description:
    "Read a backup archive's guest type, vmid (from its name) and config file (`qemu-server.conf` or `./etc/vzdump/pct.conf`), for a restore. An archive that does not hold one is refused.",
  params: z.strictObject({ storage: z.strictObject(Storage), file: BackupFile }),
  result: z.strictObject({ type: GuestType, vmid: Vmid, config: z.string() }),
} satisfies CommandDefinition;

export const guestRestore = {
  description:
    "Rebuild a guest from a backup archive: create each volume of `guest` whose key is in `restore` and fill it from the archive (a VM's disk from `<key>.qcow2`, converted to the volume's format; a container's root from the archive's files, without `./etc/vzdump`). A volume that already exists is refused. On failure every volume it created is removed.",
  params: z.strictObject({
    /** The guest as it will be: its config from the archive, its volumes placed on this node's storages. */
    guest: GuestSpec,
    storage: z.strictObject(Storage),
    file: BackupFile,
    /** The keys of the volumes to fill from the archive. */
    restore: z.array(ConfigKey).max(64),
  }),
  result: z.null(),
} satisfies CommandDefinition;
