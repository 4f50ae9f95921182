import { StorageId } from '@corral/protocol';
import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../../http/params.js';
import { GUEST, UPID, VMID_PARAM } from '../guest.endpoints.js';

/** PVE's check of these endpoints; the target storage's Datastore.AllocateSpace and a target guest's VM.Config.Disk are the service's. */
const DISK: Check = { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.Config.Disk'] };

const DIGEST = (what: string) =>
  stringParam({
    description: `The \`digest\` of ${what} this change is based on: refused (409) when it has changed since.`,
    pattern: /^[0-9a-f]{40}$/,
    patternHint: 'must be a SHA-1 digest (40 hex digits)',
  }).optional();
const QEMU_DISK = /^(?:(?:ide|sata|scsi|virtio)\d+|unused\d+|efidisk0|tpmstate0)$/;
const LXC_VOLUME = /^(?:rootfs|mp\d+|unused\d+)$/;
const diskParam = (pattern: RegExp, description: string) =>
  stringParam({
    description,
    pattern,
    patternHint: `must be a volume key (${pattern.source.replaceAll('\\d+', 'N').replace(/[()?:^$]/g, '')})`,
  });
const SIZE = stringParam({
  description: 'The new size: `+<n>[KMGT]` grows by that much, `<n>[KMGT]` is the size (a bare number is bytes). Shrinking is refused.',
  pattern: /^\+?\d+(?:\.\d+)?[KMGT]?$/,
  patternHint: 'must be +<n>[KMGT] or <n>[KMGT]',
});
const MOVE_COMMON = {
  storage: StorageId.optional().meta({ description: 'The target storage.' }),
  delete: booleanParam({ description: 'Remove the source once copied; without it, it stays as `unusedN`.' }).optional(),
  'target-vmid': VMID_PARAM.optional().meta({ description: 'Give the volume to this guest of the same node (it stays on its storage).' }),
  digest: DIGEST("the guest's config"),
  'target-digest': DIGEST("the target guest's config"),
};

function resize(type: 'qemu' | 'lxc', pattern: RegExp, extra: z.ZodRawShape) {
  return endpoint({
    method: 'PUT',
    path: `/nodes/{node}/${type}/{vmid}/resize`,
    summary: `Grow a ${type === 'qemu' ? "VM's disk" : "container's volume"} (a task); the config's size= follows`,
    parameters: z.object({
      ...GUEST,
      disk: diskParam(pattern, 'The volume key.'),
      size: SIZE,
      digest: DIGEST("the guest's config"),
      ...extra,
    }),
    returns: UPID,
    permission: DISK,
  });
}

/** `resize`, `move_disk`/`move_volume` and `unlink` (docs/guests.md "Volumes of an existing guest"). */
export const VOLUME_ENDPOINTS = {
  qemuResize: resize('qemu', QEMU_DISK, { skiplock: booleanParam({ description: 'Ignore the lock (root@pam only).' }).optional() }),
  lxcResize: resize('lxc', LXC_VOLUME, {}),
  moveDisk: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/move_disk',
    summary: "Copy a stopped VM's disk to another storage or format, or give it to another VM (a task)",
    parameters: z.object({
      ...GUEST,
      disk: diskParam(QEMU_DISK, 'The disk key.'),
      ...MOVE_COMMON,
      format: z
        .enum(['qcow2', 'raw'], { error: 'must be qcow2 or raw' })
        .optional()
        .meta({ description: "The target image format (default: the disk's)." }),
      'target-disk': diskParam(QEMU_DISK, 'The disk key in the target VM (default: the same key).').optional(),
      bwlimit: integerParam({ description: 'A bandwidth limit in KiB/s: accepted for PVE clients, not applied.', min: 0 }).optional(),
    }),
    returns: UPID,
    permission: DISK,
  }),
  moveVolume: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc/{vmid}/move_volume',
    summary: "Copy a stopped container's volume to another storage, or give it to another container (a task)",
    parameters: z.object({
      ...GUEST,
      volume: diskParam(LXC_VOLUME, 'The volume key.'),
      ...MOVE_COMMON,
      'target-volume': diskParam(LXC_VOLUME, 'The volume key in the target container (default: the same key).').optional(),
      bwlimit: z
        .number({ error: 'expected a number' })
        .min(0)
        .optional()
        .meta({ description: 'A bandwidth limit in KiB/s: accepted for PVE clients, not applied.' }),
    }),
    returns: UPID,
    permission: DISK,
  }),
  unlink: endpoint({
    method: 'PUT',
    path: '/nodes/{node}/qemu/{vmid}/unlink',
    summary: 'Remove disks from the config: their volumes become unusedN, or with force are destroyed',
    parameters: z.object({
      ...GUEST,
      idlist: stringParam({
        description: 'Disk keys, separated by commas.',
        maxLength: 4096,
        pattern: /^[a-z0-9,;\s]+$/,
        patternHint: 'must be disk keys separated by commas',
      }),
      force: booleanParam({ description: 'Destroy the volumes instead of keeping them as unusedN.' }).optional(),
    }),
    returns: z.null(),
    permission: DISK,
  }),
};
