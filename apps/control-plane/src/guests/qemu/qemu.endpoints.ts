import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam } from '../../http/params.js';
import { QEMU } from '../guest-kinds.js';
import { ALLOCATE, configChange, createParams, GUEST, guestEndpoints, powerAction, UPID } from '../guest.endpoints.js';

/** `/nodes/{node}/qemu` (spec 4.3). */
export const QEMU_ENDPOINTS = {
  ...guestEndpoints(QEMU),
  create: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu',
    summary: 'Create a VM',
    description: "PVE's config keys; `scsi0: <storage>:<size in GiB>` allocates a new disk. Checked before the task starts: a bad key is a 400, a taken vmid a 409.",
    parameters: createParams(QEMU, {}),
    returns: UPID,
    permission: ALLOCATE,
  }),
  suspend: powerAction(QEMU, 'suspend', 'Pause the VM', { todisk: booleanParam({ description: 'Hibernate to disk: not supported by Corral yet (only 0).' }).optional() }),
  reset: powerAction(QEMU, 'reset', 'Reset the VM (the reset button)'),
  setConfigAsync: configChange(QEMU, 'POST', "Change the VM's configuration, as a task"),
  template: endpoint({ method: 'POST', path: '/nodes/{node}/qemu/{vmid}/template', summary: 'Turn the stopped VM into a template', parameters: z.object(GUEST), returns: UPID, permission: ALLOCATE }),
};
