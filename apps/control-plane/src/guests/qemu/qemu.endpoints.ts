import { StorageId } from '@corral/protocol';
import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, stringParam } from '../../http/params.js';
import { QEMU } from '../guest-kinds.js';
import { QEMU_CREATE_OPTIONS } from '../create-options.js';
import { RESTORE_PARAMS } from '../restore/restore-params.js';
import { ALLOCATE, ALLOCATE_INTO_POOL, configChange, createParams, GUEST, guestEndpoints, powerAction, UPID } from '../guest.endpoints.js';

/** PVE 9's check for the monitor: Sys.Audit or Sys.Modify on the VM (which one a command needs is the service's). */
const MONITOR = { kind: 'privileges', path: '/vms/{vmid}', privileges: ['Sys.Audit', 'Sys.Modify'], any: true } as const;

/** `/nodes/{node}/qemu`. */
export const QEMU_ENDPOINTS = {
  ...guestEndpoints(QEMU),
  create: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu',
    summary: 'Create a VM',
    description:
      "PVE's config keys; `scsi0: <storage>:<size in GiB>` allocates a new disk. Checked before the task starts: a bad key is a 400, a taken vmid a 409. With `archive`, restores the VM from a backup instead (a `qmrestore` task; docs/backups.md).",
    parameters: createParams(QEMU, {
      ...QEMU_CREATE_OPTIONS,
      ...RESTORE_PARAMS,
      storage: StorageId.optional().meta({ description: 'With a restore: the storage of the restored disks (default: where each was).' }),
    }),
    returns: UPID,
    permission: ALLOCATE_INTO_POOL,
  }),
  suspend: powerAction(QEMU, 'suspend', 'Pause the VM', {
    todisk: booleanParam({ description: 'Hibernate to disk: not supported by Corral yet (only 0).' }).optional(),
  }),
  reset: powerAction(QEMU, 'reset', 'Reset the VM (the reset button)'),
  setConfigAsync: configChange(QEMU, 'POST', "Change the VM's configuration, as a task"),
  monitorCommands: endpoint({
    method: 'GET',
    path: '/nodes/{node}/qemu/{vmid}/monitor',
    summary: 'The monitor commands Corral runs: read-only ones with Sys.Audit, the others with Sys.Modify',
    parameters: z.object(GUEST),
    returns: z.array(z.object({ command: z.string(), privilege: z.enum(['Sys.Audit', 'Sys.Modify']) })),
    permission: MONITOR,
  }),
  monitor: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/monitor',
    summary: 'Run a human-monitor command on the running VM and return its output',
    parameters: z.object({
      ...GUEST,
      command: stringParam({ description: 'One of the commands GET .../monitor lists, e.g. `info status`.', maxLength: 1024 }),
    }),
    returns: z.string(),
    permission: MONITOR,
  }),
  template: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/template',
    summary: 'Turn the stopped VM into a template',
    parameters: z.object(GUEST),
    returns: UPID,
    permission: ALLOCATE,
  }),
};
