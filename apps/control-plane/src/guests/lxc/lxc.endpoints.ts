import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, stringParam } from '../../http/params.js';
import { LXC } from '../guest-kinds.js';
import { LXC_CREATE_OPTIONS } from '../create-options.js';
import { RESTORE_PARAMS } from '../restore/restore-params.js';
import {
  ALLOCATE,
  ALLOCATE_INTO_POOL,
  createParams,
  GUEST,
  guestEndpoints,
  POWER,
  powerAction,
  SHUTDOWN_TIMEOUT,
  UPID,
} from '../guest.endpoints.js';

/** The power commands of `POST .../lxc/{vmid}/status`. */
export const LXC_COMMANDS = ['start', 'stop', 'shutdown', 'restart', 'reboot', 'suspend', 'resume'] as const;

/** `/nodes/{node}/lxc`. */
export const LXC_ENDPOINTS = {
  ...guestEndpoints(LXC),
  create: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc',
    summary: 'Create a container',
    description:
      "PVE's config keys; `rootfs: <storage>:<size in GiB>` allocates the root file system, filled from `ostemplate`. Checked before the task starts: a bad key is a 400, a taken vmid a 409. With `restore=1` and a backup as `ostemplate` (PVE's way), or with `archive`, restores the container from the backup instead (a `vzrestore` task; docs/backups.md).",
    parameters: createParams(LXC, {
      ...LXC_CREATE_OPTIONS,
      ostemplate: stringParam({
        description: 'The template for the root file system, `<storage>:vztmpl/<file>`; with `restore=1`, the backup to restore.',
        pattern: /^[A-Za-z][A-Za-z0-9_.-]*:(?:vztmpl\/[A-Za-z0-9_.+-]+|backup\/vzdump-lxc-[0-9_-]+\.tar(?:\.gz|\.zst)?)$/,
        patternHint: 'must be a template volume <storage>:vztmpl/<file> (or, with restore=1, a backup <storage>:backup/vzdump-lxc-...)',
      }).optional(),
      storage: stringParam({
        description:
          'The storage of the root file system when `rootfs` is absent (default `local`, 4 GiB); with a restore, of the restored root file system (default: where it was).',
        pattern: /^[A-Za-z][A-Za-z0-9_.-]*$/,
        patternHint: 'must be a storage id',
      }).optional(),
      restore: booleanParam({ description: '`ostemplate` is a backup to restore (PVE).' }).optional(),
      ...RESTORE_PARAMS,
    }),
    returns: UPID,
    permission: ALLOCATE_INTO_POOL,
  }),
  suspend: powerAction(LXC, 'suspend', 'Freeze the container'),
  restart: powerAction(LXC, 'restart', 'Restart the container (the same as reboot)', { timeout: SHUTDOWN_TIMEOUT.optional() }),
  command: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc/{vmid}/status',
    summary: 'Run a power command on the container',
    parameters: z.object({
      ...GUEST,
      command: z.enum(LXC_COMMANDS, { error: `must be one of ${LXC_COMMANDS.join(', ')}` }).meta({ description: 'The command.' }),
    }),
    returns: UPID,
    permission: POWER,
  }),
  template: endpoint({
    method: 'POST',
    path: '/nodes/{node}/lxc/{vmid}/template',
    summary: 'Turn the stopped container into a template (PVE answers null)',
    parameters: z.object(GUEST),
    returns: z.null(),
    permission: ALLOCATE,
  }),
};
