import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { stringParam } from '../http/params.js';
import { NODE } from '../nodes/nodes.endpoints.js';

/** PVE: Sys.Audit on `/` or on `/nodes/{node}`. */
const AUDIT_DISKS: Check = {
  kind: 'anyOf',
  checks: [
    { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] },
    { kind: 'privileges', path: '/nodes/{node}', privileges: ['Sys.Audit'] },
  ],
};
/** PVE: Sys.Modify on `/`. */
const MODIFY_DISKS: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Modify'] };

export const DiskEntry = z.object({
  devpath: z.string(),
  size: z.number().int(),
  type: z.string().meta({ description: '`hdd`, `ssd`, `nvme`, `usb` or `unknown`.' }),
  model: z.string().optional(),
  serial: z.string().optional(),
  vendor: z.string().optional(),
  wwn: z.string().optional(),
  gpt: z.union([z.literal(0), z.literal(1)]),
  mounted: z.union([z.literal(0), z.literal(1)]),
  used: z
    .string()
    .optional()
    .meta({ description: 'What uses the disk (`partitions`, `LVM`, `ZFS`, `mounted`, a file system); absent when unused.' }),
  health: z.string().optional().meta({ description: "SMART's verdict where smartctl is installed." }),
  osdid: z.literal(-1).meta({ description: 'PVE: the Ceph OSD on the disk; Corral manages no Ceph, always -1.' }),
  'osdid-list': z.array(z.number().int()).meta({ description: 'PVE: the Ceph OSDs on the disk; always empty.' }),
});

const list = (path: string, summary: string) =>
  endpoint({ method: 'GET', path, summary, parameters: z.object(NODE), returns: z.array(DiskEntry), permission: AUDIT_DISKS });

const initGpt = (path: string, summary: string) =>
  endpoint({
    method: 'POST',
    path,
    summary,
    description:
      'Refused for a disk with partitions, a file system, mounts or holders (LVM, device mapper, RAID). Runs as a task; returns its UPID.',
    parameters: z.object({
      ...NODE,
      disk: stringParam({ description: 'The whole disk, e.g. `/dev/sdb`.', maxLength: 255 }),
      uuid: stringParam({ description: 'The GUID to give the disk (random by default).', maxLength: 36 }).optional(),
    }),
    returns: z.string(),
    permission: MODIFY_DISKS,
  });

export const DISKS_ENDPOINTS = {
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}/disks',
    summary: "The node's disk management",
    parameters: z.object(NODE),
    returns: z.array(z.object({ name: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  list: list('/nodes/{node}/disks/list', "The host's whole disks (PVE's path)"),
  specList: list('/nodes/{node}/disk', "The host's whole disks (Corral's path)"),
  initGpt: initGpt('/nodes/{node}/disks/initgpt', "Write an empty GPT to an unused disk (PVE's path)"),
  specInitGpt: initGpt('/nodes/{node}/disk', "Write an empty GPT to an unused disk (Corral's path)"),
};
