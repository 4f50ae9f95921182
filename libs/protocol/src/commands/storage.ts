import { z } from 'zod';
import { Bytes, OpaqueId, Vmid } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';
import { HostFilePath } from './guest.js';

/*
 * Directory storages: a storage is a folder on each node, PVE's `dir`
 * type. The control plane sends the storage's path (resolved under the agent's host root) and, for
 * one volume, its file below that path in one of PVE's folders; the agent touches nothing else.
 */

/** What a storage may hold (PVE's `content` kinds). */
export const ContentKind = z.enum(['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets', 'import']);
export type ContentKind = z.infer<typeof ContentKind>;

/** A storage id, as PVE's `pve-storage-id`. */
export const StorageId = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'must be a storage id (a letter, then letters, digits, _ . or -)');

/** A file name in a storage's folder: no `/`, not hidden (the agent's own temporary files are). */
export const FILE_NAME = '[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,254}';

/** The path of a volume below its storage's path: a file of the ISO, template, backup or snippet folder, or a guest's image or root folder. */
export const VolumeFile = z
  .string()
  .regex(
    new RegExp(
      `^(?:(?:template/iso|template/cache|dump|snippets|import)/${FILE_NAME}|images/(\\d{3,9})/(?:vm|base|subvol|basevol)-\\1-disk-\\d{1,3}(?:\\.(?:qcow2|raw))?)$`,
    ),
    'must be a volume file below the storage path (template/iso/<file>, template/cache/<file>, dump/<file>, snippets/<file>, import/<file> or images/<vmid>/<disk>)',
  );

/** Where an upload may go: an ISO image or a container template. */
export const UploadFile = z
  .string()
  .regex(new RegExp(`^template/(?:iso|cache)/${FILE_NAME}$`), 'must be template/iso/<file> or template/cache/<file>');

/** The storage itself: its folder, and whether that folder must be a mounted file system. */
export const LOCATION = {
  path: HostFilePath,
  /** PVE's `is_mountpoint` (Corral's `is-rootdir`): while nothing is mounted at `path` the storage is inactive, and nothing is written under it. */
  mountpoint: z.boolean(),
};

export const storageActivate = {
  description:
    'Make a directory storage usable on this node: create its path and the folders of its content kinds (`images/`, `template/iso/`, `template/cache/`, `dump/`, `snippets/`, `import/`). A `mountpoint` storage whose path is not a mounted file system is left untouched and answered inactive.',
  params: z.strictObject({ ...LOCATION, content: z.array(ContentKind).max(7) }),
  result: z.object({ active: z.boolean() }),
} satisfies CommandDefinition;

/** A storage's file system as `statfs` sees it; all 0 when it is inactive (path missing, or an unmounted `mountpoint`). */
export const StorageStatus = z.object({
  active: z.boolean(),
  total: Bytes,
  used: Bytes,
  /** What an unprivileged writer may still use (statfs `bavail`): PVE's `avail`. */
  avail: Bytes,
});
export type StorageStatus = z.infer<typeof StorageStatus>;

export const storageStatus = {
  description: "The size, use and free space of the file system that holds a directory storage's path.",
  params: z.strictObject(LOCATION),
  result: StorageStatus,
} satisfies CommandDefinition;

/** A storage whose space the agent reports with each inventory. */
export const WatchedStorage = z.strictObject({ storage: StorageId, ...LOCATION });
export type WatchedStorage = z.infer<typeof WatchedStorage>;

export const storageWatch = {
  description:
    'The directory storages enabled on this node, whose space the agent reports with every inventory from now on (`InventoryReport.storages`), in place of the list it had. The control plane sends it whenever the agent connects and whenever the storage definitions change.',
  params: z.strictObject({ storages: z.array(WatchedStorage).max(256) }),
  result: z.null(),
} satisfies CommandDefinition;

/** One volume found on a storage, with PVE's names (`GET /nodes/{node}/storage/{storage}/content`). */
export const StorageVolume = z.object({
  /** `<storage>:<volume name>`: `local:iso/x.iso`, `local:100/vm-100-disk-0.qcow2`, `local:backup/vzdump-qemu-100-2025_01_31-02_00_00.vma.zst`. */
  volid: z.string(),
  content: ContentKind,
  /** `iso`, `tzst`/`tgz`/`txz`/`tar` (templates), `qcow2`/`raw`/`subvol` (guests), `vma.zst`/`tar.zst`/... (backups), `snippet`. */
  format: z.string(),
  /** Bytes: an image's virtual size; 0 for a container's root folder (as PVE). */
  size: Bytes,
  /** Guest images: the bytes the file takes on disk. */
  used: Bytes.optional(),
  /** Seconds since the epoch: a backup's time from its name, else the file's modification time. */
  ctime: z.int().min(0),
  /** The guest the volume belongs to: images, root folders and backups. */
  vmid: Vmid.optional(),
  /** Backups: the kind of guest. */
  subtype: z.enum(['qemu', 'lxc']).optional(),
  /** Backups: the text of `<file>.notes`. */
  notes: z.string().optional(),
  /** Backups: `<file>.protected` exists, so that prune and delete leave it. */
  protected: z.boolean().optional(),
});
export type StorageVolume = z.infer<typeof StorageVolume>;

export const storageContent = {
  description:
    'The volumes of a directory storage, read from its files, of the given content kinds (and of one guest, with `vmid`). Folders that do not exist hold nothing.',
  params: z.strictObject({ storage: StorageId, ...LOCATION, content: z.array(ContentKind).min(1).max(7), vmid: Vmid.optional() }),
  result: z.array(StorageVolume),
} satisfies CommandDefinition;

export const storageVolumeDelete = {
  description:
    "Remove one volume of a directory storage: a file (a backup with its `.notes` and `.log`), or a container's root folder. Refused for a protected backup. The control plane checks that no guest uses it.",
  params: z.strictObject({ ...LOCATION, file: VolumeFile }),
  result: z.null(),
} satisfies CommandDefinition;

/** Checksum algorithms of PVE's upload (`checksum-algorithm`). */
export const ChecksumAlgorithm = z.enum(['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']);

/** A digest the file must have, in lower-case hex. */
export const Checksum = z.strictObject({
  algorithm: ChecksumAlgorithm,
  digest: z.string().regex(/^[0-9a-f]{32,128}$/, 'must be a digest in lower-case hex'),
});

/**
 * The first message of an upload's stream, a text message from the agent: it listens now, so the
 * control plane may send (bytes sent before could arrive before anyone listens on the agent's side).
 */
export const UploadStreamReady = z.strictObject({ ready: z.literal(true) });
export type UploadStreamReady = z.infer<typeof UploadStreamReady>;

/**
 * The last message of an upload's stream, a text message from the control plane after the file's
 * bytes: all `size` bytes were sent. A stream that closes without it is an upload cut short.
 */
export const UploadStreamEnd = z.strictObject({ size: Bytes });
export type UploadStreamEnd = z.infer<typeof UploadStreamEnd>;

export const storageUpload = {
  description:
    'Receive a file into a directory storage through the byte stream `stream`, which the agent opens to the control plane beside its connection (`AGENT_STREAMS_PATH/<stream>`): the agent says `UploadStreamReady`, then the file comes as binary messages, then `UploadStreamEnd`. It is written to a hidden temporary file in the target folder, its size and (with `checksum`) its digest are checked, and only then is it renamed to `file` (replacing one of that name). Anything else leaves no file behind.',
  params: z.strictObject({
    stream: OpaqueId,
    ...LOCATION,
    file: UploadFile,
    checksum: Checksum.optional(),
  }),
  result: z.object({ size: Bytes }),
} satisfies CommandDefinition;
