import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { stringParam } from '../../http/params.js';
import { LXC } from '../guest-kinds.js';
import { ALLOCATE, ALLOCATE_INTO_POOL, createParams, GUEST, guestEndpoints, POWER, powerAction, SHUTDOWN_TIMEOUT, UPID } from '../guest.endpoints.js';

/** The power commands of `POST .../lxc/{vmid}/status` (spec 4.4). */
export const LXC_COMMANDS = ['start', 'stop', 'shutdown', 'restart', 'reboot', 'suspend', 'resume'] as const;

/** `/nodes/{node}/lxc` (spec 4.4). */
export const LXC_ENDPOINTS = {
  ...guestEndpoints(LXC),
  create: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc',
    summary: 'Create a container',
    description: "PVE's config keys; `rootfs: <storage>:<size in GiB>` allocates the root file system, filled from `ostemplate`. Checked before the task starts: a bad key is a 400, a taken vmid a 409.",
    parameters: createParams(LXC, {
      ostemplate: stringParam({ description: 'The template for the root file system, `<storage>:vztmpl/<file>`.', pattern: /^[A-Za-z][A-Za-z0-9_.-]*:vztmpl\/[A-Za-z0-9_.+-]+$/, patternHint: 'must be a template volume <storage>:vztmpl/<file>' }),
      storage: stringParam({ description: 'The storage of the root file system when `rootfs` is absent (default `local`, 4 GiB).', pattern: /^[A-Za-z][A-Za-z0-9_.-]*$/, patternHint: 'must be a storage id' }).optional(),
    }),
    returns: UPID,
    permission: ALLOCATE_INTO_POOL,
  }),
  suspend: powerAction(LXC, 'suspend', 'Freeze the container'),
  restart: powerAction(LXC, 'restart', 'Restart the container (spec 4.4; the same as reboot)', { timeout: SHUTDOWN_TIMEOUT.optional() }),
  command: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc/{vmid}/status',
    summary: 'Run a power command on the container (spec 4.4)',
    parameters: z.object({ ...GUEST, command: z.enum(LXC_COMMANDS, { error: `must be one of ${LXC_COMMANDS.join(', ')}` }).meta({ description: 'The command.' }) }),
    returns: UPID,
    permission: POWER,
  }),
  template: endpoint({ method: 'POST', path: '/nodes/{node}/lxc/{vmid}/template', summary: 'Turn the stopped container into a template (PVE answers null)', parameters: z.object(GUEST), returns: z.null(), permission: ALLOCATE }),
};
