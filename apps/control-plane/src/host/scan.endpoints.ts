import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { AUDIT_NODE, NODE } from '../nodes/nodes.endpoints.js';

/** PVE's scans need Datastore.Allocate on `/storage`: they serve creating storage. */
const ALLOCATE_STORAGE: Check = { kind: 'privileges', path: '/storage', privileges: ['Datastore.Allocate'] };

const VolumeGroup = z.object({ vg: z.string(), size: z.number().int(), free: z.number().int() });
const ZfsPool = z.object({ pool: z.string(), size: z.number().int(), free: z.number().int(), health: z.string() });

export const SCAN_ENDPOINTS = {
  all: endpoint({
    method: 'GET',
    path: '/nodes/{node}/scan',
    summary: 'The local storage the host can offer: LVM volume groups, ZFS pools and local file systems, found with its own tools',
    description: 'A kind whose tool is not installed on the host (`vgs`, `zpool`) is an empty list.',
    parameters: z.object(NODE),
    returns: z.object({
      lvm: z.array(VolumeGroup),
      zfs: z.array(ZfsPool),
      dir: z.array(z.object({ path: z.string(), device: z.string(), type: z.string(), size: z.number().int(), free: z.number().int() })),
    }),
    permission: AUDIT_NODE,
  }),
  lvm: endpoint({
    method: 'GET',
    path: '/nodes/{node}/scan/lvm',
    summary: "The host's LVM volume groups (PVE)",
    parameters: z.object(NODE),
    returns: z.array(VolumeGroup),
    permission: ALLOCATE_STORAGE,
  }),
  zfs: endpoint({
    method: 'GET',
    path: '/nodes/{node}/scan/zfs',
    summary: "The host's ZFS pools (PVE)",
    parameters: z.object(NODE),
    returns: z.array(ZfsPool),
    permission: ALLOCATE_STORAGE,
  }),
};
