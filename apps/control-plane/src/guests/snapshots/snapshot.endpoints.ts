import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, stringParam } from '../../http/params.js';
import type { GuestKind } from '../guest-kinds.js';
import { GUEST, UPID } from '../guest.endpoints.js';

/** PVE's checks: VM.Snapshot to take, delete and describe; either snapshot privilege to roll back; and to read a snapshot's config, VM.Audit too. */
const on = (
  privileges: readonly ['VM.Snapshot' | 'VM.Snapshot.Rollback' | 'VM.Audit', ...('VM.Snapshot' | 'VM.Snapshot.Rollback' | 'VM.Audit')[]],
): Check => ({ kind: 'privileges', path: '/vms/{vmid}', privileges, any: true });
const SNAPSHOT = on(['VM.Snapshot']);
const ROLLBACK = on(['VM.Snapshot', 'VM.Snapshot.Rollback']);
const AUDIT = on(['VM.Audit']);
const READ_CONFIG = on(['VM.Snapshot', 'VM.Snapshot.Rollback', 'VM.Audit']);

/** PVE's `pve-snapshot-name`: a config id of at most 40 characters. */
export const SNAPNAME = stringParam({
  description: 'The name of the snapshot.',
  maxLength: 40,
  pattern: /^[A-Za-z][A-Za-z0-9_-]+$/,
  patternHint: 'must be a snapshot name: a letter, then at least one letter, digit, _ or -',
});
const DESCRIPTION = stringParam({ description: 'A textual description or comment.', maxLength: 8192 }).optional();
const Flag = z.union([z.literal(0), z.literal(1)]);

/** One entry of `GET .../snapshot`: a snapshot, or last the guest's current state (`current`, "You are here!"). */
export const SnapshotEntry = z.object({
  name: z.string().meta({ description: "The snapshot's name; `current` is the guest's current state." }),
  description: z.string(),
  snaptime: z.number().int().optional().meta({ description: 'When it was taken (seconds since the epoch).' }),
  parent: z
    .string()
    .optional()
    .meta({ description: 'The snapshot it was taken after (for `current`: the last one taken or rolled back to).' }),
  vmstate: Flag.optional().meta({ description: "VMs: whether the VM's memory was saved with it." }),
  running: Flag.optional().meta({ description: 'VMs, on `current`: whether the VM runs.' }),
  digest: z.string().optional().meta({ description: "On `current`: the config's digest." }),
});
export type SnapshotEntry = z.infer<typeof SnapshotEntry>;

/** `/nodes/{node}/<qemu|lxc>/{vmid}/snapshot` and `.../feature` (docs/guests.md "Snapshots"). */
export function snapshotEndpoints(kind: GuestKind) {
  const one = `/nodes/{node}/${kind.type}/{vmid}`;
  const snapshot = { ...GUEST, snapname: SNAPNAME };
  const qemu = kind.type === 'qemu';
  return {
    list: endpoint({
      method: 'GET',
      path: `${one}/snapshot`,
      summary: 'The snapshots, as a tree by `parent`, and last the current state',
      parameters: z.object(GUEST),
      returns: z.array(SnapshotEntry),
      permission: AUDIT,
    }),
    create: endpoint({
      method: 'POST',
      path: `${one}/snapshot`,
      summary: `Take a snapshot of the ${qemu ? 'VM' : 'container'}`,
      description: qemu
        ? "A `qmsnapshot` task. Every disk must be qcow2 (else PVE's `snapshot feature is not available`); with `vmstate=1` a running VM's memory is saved too."
        : 'A `vzsnapshot` task; a running container is frozen while its volumes are copied.',
      parameters: z.object({
        ...snapshot,
        description: DESCRIPTION,
        ...(qemu ? { vmstate: booleanParam({ description: "Save the VM's memory and device state too (a running VM)." }).optional() } : {}),
      }),
      returns: UPID,
      permission: SNAPSHOT,
    }),
    index: endpoint({
      method: 'GET',
      path: `${one}/snapshot/{snapname}`,
      summary: "The snapshot's sub-resources",
      parameters: z.object(snapshot),
      returns: z.array(z.object({ cmd: z.string() })),
      permission: { kind: 'authenticated' },
    }),
    destroy: endpoint({
      method: 'DELETE',
      path: `${one}/snapshot/{snapname}`,
      summary: 'Delete the snapshot (its children keep their place in the tree under its parent)',
      parameters: z.object({
        ...snapshot,
        force: booleanParam({ description: 'Remove it from the config even when removing its data fails.' }).optional(),
      }),
      returns: UPID,
      permission: SNAPSHOT,
    }),
    rollback: endpoint({
      method: 'POST',
      path: `${one}/snapshot/{snapname}/rollback`,
      summary: `Return the ${qemu ? 'VM' : 'container'} to the snapshot: its volumes and config (a running one is stopped first)`,
      parameters: z.object({
        ...snapshot,
        start: booleanParam({
          description: qemu
            ? "Start the VM after the rollback (a snapshot with the VM's memory starts it in that state anyway)."
            : 'Start the container after the rollback.',
        }).optional(),
      }),
      returns: UPID,
      permission: ROLLBACK,
    }),
    config: endpoint({
      method: 'GET',
      path: `${one}/snapshot/{snapname}/config`,
      summary: "The snapshot's config: the guest's when it was taken",
      parameters: z.object(snapshot),
      returns: z.record(z.string(), z.union([z.string(), z.number()])),
      permission: READ_CONFIG,
    }),
    setConfig: endpoint({
      method: 'PUT',
      path: `${one}/snapshot/{snapname}/config`,
      summary: "Change the snapshot's description",
      parameters: z.object({ ...snapshot, description: DESCRIPTION }),
      returns: z.null(),
      permission: SNAPSHOT,
    }),
    feature: endpoint({
      method: 'GET',
      path: `${one}/feature`,
      summary: 'Whether the guest can be snapshotted, cloned (linked) or copied, by its volumes',
      parameters: z.object({
        ...GUEST,
        feature: z.enum(['snapshot', 'clone', 'copy'], { error: 'must be snapshot, clone or copy' }).meta({ description: 'The feature.' }),
        snapname: SNAPNAME.optional(),
      }),
      returns: qemu ? z.object({ hasFeature: Flag, nodes: z.array(z.string()) }) : z.object({ hasFeature: Flag }),
      permission: AUDIT,
    }),
  };
}
