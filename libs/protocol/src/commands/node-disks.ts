import { z } from 'zod';
import { Bytes, DevicePath } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/** A whole disk of the host, with PVE's names (`/nodes/{node}/disks/list`). */
export const Disk = z.object({
  devpath: z.string(),
  size: Bytes,
  type: z.enum(['hdd', 'ssd', 'nvme', 'usb', 'unknown']),
  model: z.string().optional(),
  serial: z.string().optional(),
  vendor: z.string().optional(),
  wwn: z.string().optional(),
  /** Whether it has a GPT partition table. */
  gpt: z.boolean(),
  mounted: z.boolean(),
  /** What uses it (`partitions`, `LVM`, `ZFS`, `mounted`, a file system type), absent when unused. */
  used: z.string().optional(),
  /** The SMART verdict where smartctl is present (`PASSED`, `FAILED`). */
  health: z.string().optional(),
});
export type Disk = z.infer<typeof Disk>;

export const nodeDisksList = {
  description: "The host's whole disks, with what uses each of them.",
  params: z.strictObject({}),
  result: z.array(Disk),
} satisfies CommandDefinition;

export const nodeDisksInitGpt = {
  description:
    'Write an empty GPT partition table to a disk. The agent refuses a disk that has partitions, is mounted or is held by another device (LVM, device mapper, RAID).',
  params: z.strictObject({
    disk: DevicePath,
    /** The disk GUID to write; sgdisk picks a random one when absent. */
    uuid: z.guid('must be a GUID such as 0b7a7f3c-1d2e-4f5a-8b9c-0d1e2f3a4b5c').optional(),
  }),
  result: z.null(),
} satisfies CommandDefinition;
