import { z } from 'zod';
import { Bytes } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/** Local storage the host can offer, each kind found with the host's own tools; a kind whose tool is missing is an empty list. */
export const StorageScan = z.object({
  /** LVM volume groups (`vgs`). */
  lvm: z.array(z.object({ vg: z.string(), size: Bytes, free: Bytes })),
  /** ZFS pools (`zpool list`). */
  zfs: z.array(z.object({ pool: z.string(), size: Bytes, free: Bytes, health: z.string() })),
  /** Mounted local file systems that could hold a directory storage. */
  directories: z.array(z.object({ path: z.string(), device: z.string(), fsType: z.string(), size: Bytes, free: Bytes })),
});
export type StorageScan = z.infer<typeof StorageScan>;

export const nodeStorageScan = {
  description: 'The LVM volume groups, ZFS pools and local file systems of the host.',
  params: z.strictObject({}),
  result: StorageScan,
} satisfies CommandDefinition;
