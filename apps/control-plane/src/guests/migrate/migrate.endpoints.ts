import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../../http/params.js';
import { nodeParam } from '../../nodes/node-params.js';
import { GUEST, UPID } from '../guest.endpoints.js';

/** PVE: VM.Migrate on the VM, for the migration and for its preconditions. */
const MIGRATE: Check = { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.Migrate'] };

const STORAGE_ID = '[A-Za-z][A-Za-z0-9_.-]*';
/** PVE's `storage-pair-list`: `1`, `<storage>`, or `<source>:<target>` pairs (and one `<storage>` for the rest), separated by commas. */
const STORAGE_PAIRS = new RegExp(`^(?:1|${STORAGE_ID}(?::${STORAGE_ID})?)(?:[,;\\s]+${STORAGE_ID}(?::${STORAGE_ID})?)*$`);

const bwlimitParam = () => integerParam({ description: 'A bandwidth limit in KiB/s: accepted for PVE clients, not applied yet.', min: 0 });

/** PVE's `storage-pair-list` of a migration's target storages (`targetstorage` of VMs, `target-storage` of containers). */
export const storagePairsParam = () =>
  stringParam({
    description:
      "PVE's mapping of source to target storages: `<source>:<target>` pairs, one `<storage>` for all (the others), or `1` for each to itself (the default).",
    maxLength: 4096,
    pattern: STORAGE_PAIRS,
    patternHint: 'must be a storage, or <source>:<target> storage pairs separated by commas, or 1',
  });

const Flag = z.union([z.literal(0), z.literal(1)]);

/** `GET .../migrate` (PVE's `migrate_vm_precondition`): what a migration would move, and to which nodes it may go. */
export const MigratePreconditions = z.object({
  running: Flag,
  allowed_nodes: z.array(z.string()).meta({ description: 'The nodes (the target, when given) whose storages can take the VM.' }),
  not_allowed_nodes: z
    .record(z.string(), z.object({ unavailable_storages: z.array(z.string()) }))
    .meta({ description: 'The other nodes, with the storages they lack.' }),
  local_disks: z
    .array(z.object({ volid: z.string(), size: z.number().int(), cdrom: Flag, is_unused: Flag }))
    .meta({ description: 'The volumes on storages that are not shared: a migration copies them.' }),
  local_resources: z.array(z.string()).meta({ description: 'Host devices that keep the VM on its node: Corral passes none through.' }),
  'mapped-resources': z.array(z.string()),
  'mapped-resource-info': z.record(z.string(), z.never()),
  'has-dbus-vmstate': Flag,
});

/** `/nodes/{node}/qemu/{vmid}/migrate` and `/nodes/{node}/lxc/{vmid}/migrate` (docs/guests.md "Migration"). */
export const MIGRATE_ENDPOINTS = {
  preconditions: endpoint({
    method: 'GET',
    path: '/nodes/{node}/qemu/{vmid}/migrate',
    summary: 'What a migration of the VM would move, and the nodes it may go to',
    parameters: z.object({ ...GUEST, target: nodeParam('Only this target node.').optional() }),
    returns: MigratePreconditions,
    permission: MIGRATE,
  }),
  migrate: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/migrate',
    summary: 'Move the VM to another node, live when it runs',
    description:
      "The agents copy the VM's disks that are not on shared storage, and for a running VM its memory, directly between the nodes (unencrypted, as PVE's `migration_type=insecure`). Checked before the task: the target node exists, is another one and is reachable; a running VM needs `online=1`, and with disks to copy `with-local-disks=1`; the target storages hold VM disks on the target. A stopped VM with `online=1` migrates offline, as in PVE.",
    parameters: z.object({
      ...GUEST,
      target: nodeParam('The target node.'),
      online: booleanParam({ description: 'Live migration, when the VM runs (needed when it does).' }).optional(),
      'with-local-disks': booleanParam({
        description: 'Copy the disks on local storages during a live migration (needed when there are any).',
      }).optional(),
      targetstorage: storagePairsParam().optional(),
      storage: stringParam({
        description: "The target storage of all disks (Corral's name for a single `targetstorage`).",
        pattern: new RegExp(`^${STORAGE_ID}$`),
        patternHint: 'must be a storage id',
      }).optional(),
      bwlimit: bwlimitParam().optional(),
    }),
    returns: UPID,
    permission: MIGRATE,
  }),
  migrateContainer: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc/{vmid}/migrate',
    summary: 'Move the container to another node; a running one in restart mode',
    description:
      "A stopped container moves offline with its volumes that are not on shared storage (copied directly between the nodes, unencrypted). A running one needs `restart=1`, PVE's restart mode: it is shut down (`timeout`, then stopped), moved, and started on the target. `online=1` for a running container is refused, as in PVE: containers have no live migration.",
    parameters: z.object({
      ...GUEST,
      target: nodeParam('The target node.'),
      online: booleanParam({
        description: 'Live migration: refused for a running container (PVE has none for containers); a stopped one moves offline.',
      }).optional(),
      restart: booleanParam({
        description: "PVE's restart mode for a running container: shut down, moved, started on the target.",
      }).optional(),
      'target-storage': storagePairsParam().optional(),
      timeout: integerParam({
        description: 'Seconds the shutdown of restart mode waits before it stops the container (default 180).',
        min: 0,
      }).optional(),
      bwlimit: bwlimitParam().optional(),
    }),
    returns: UPID,
    permission: MIGRATE,
  }),
};
