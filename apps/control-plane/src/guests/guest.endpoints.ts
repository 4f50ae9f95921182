import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { booleanParam, integerParam, listParam, stringParam } from '../http/params.js';
import { NODE } from '../nodes/nodes.endpoints.js';
import { nodeParam } from '../nodes/node-params.js';
import { poolidParam } from '../inventory/pools/pool-params.js';
import { configParam, configParams } from './config-params.js';
import { configSchema } from './config-view.js';
import { CDROM } from './create-options.js';
import { DNS_NAME } from '@corral/pve-formats';
import type { GuestKind } from './guest-kinds.js';

export const VMID_PARAM = integerParam({ description: 'The guest id.', min: 100, max: 999_999_999 });
export const GUEST = { ...NODE, vmid: VMID_PARAM };

const on = (privileges: Extract<Check, { kind: 'privileges' }>['privileges'], any?: true): Check => ({
  kind: 'privileges',
  path: '/vms/{vmid}',
  privileges,
  ...(any ? { any } : {}),
});
export const AUDIT = on(['VM.Audit']);
export const POWER = on(['VM.PowerMgmt']);
export const ALLOCATE = on(['VM.Allocate']);
/** PVE's rule for a new guest: VM.Allocate on it, or on the pool it goes into (`pool`). */
export const ALLOCATE_INTO_POOL: Check = {
  kind: 'anyOf',
  checks: [ALLOCATE, { kind: 'privileges', path: '/pool/{pool}', privileges: ['VM.Allocate'] }],
};
const CONFIGURE = on(
  [
    'VM.Config.Disk',
    'VM.Config.CDROM',
    'VM.Config.CPU',
    'VM.Config.Memory',
    'VM.Config.Network',
    'VM.Config.HWType',
    'VM.Config.Options',
    'VM.Config.Cloudinit',
  ],
  true,
);

/** A guest as the lists and `status/current` show it; `cpu` a fraction of the host's CPUs, sizes in bytes. */
export const GuestStatus = z.object({
  vmid: z.number().int(),
  name: z.string(),
  status: z.enum(['running', 'stopped']),
  qmpstatus: z
    .enum(['running', 'paused', 'stopped'])
    .optional()
    .meta({ description: 'VMs: `paused` for a suspended VM, which PVE shows as `running`.' }),
  type: z.literal('lxc').optional(),
  cpus: z.number().int(),
  cpu: z.number(),
  maxmem: z.number().int(),
  mem: z.number().int(),
  maxswap: z.number().int().optional(),
  swap: z.number().int().optional(),
  maxdisk: z.number().int(),
  disk: z.number().int(),
  uptime: z.number().int(),
  netin: z.number().int(),
  netout: z.number().int(),
  diskread: z.number().int(),
  diskwrite: z.number().int(),
  pid: z.number().int().optional(),
  template: z.literal(1).optional(),
  lock: z.string().optional(),
  tags: z.string().optional(),
  agent: z.literal(1).optional().meta({ description: 'VMs: 1 when the config enables the QEMU guest agent.' }),
  ha: z
    .union([
      z.object({ managed: z.literal(0) }),
      z.object({ managed: z.literal(1), state: z.string().meta({ description: 'The requested HA state.' }), group: z.string().optional() }),
    ])
    .optional()
    .meta({ description: "PVE's HA view of the guest: `managed` 1 with its requested `state` and `group` when it is an HA resource." }),
});
export type GuestStatus = z.infer<typeof GuestStatus>;

export const UPID = z.string().meta({ description: "The task's UPID." });
export const SHUTDOWN_TIMEOUT = integerParam({ description: 'Seconds to wait for the guest to stop (default 60).', min: 0, max: 86_400 });

/** `POST /nodes/{node}/<qemu|lxc>/{vmid}/status/<path>`: a power action, answered with its task's UPID. */
export function powerAction<S extends z.ZodRawShape = Record<never, never>>(kind: GuestKind, path: string, summary: string, extra?: S) {
  return endpoint({
    method: 'POST',
    path: `/nodes/{node}/${kind.type}/{vmid}/status/${path}`,
    summary,
    parameters: z.object({ ...GUEST, ...(extra ?? ({} as S)) }),
    returns: UPID,
    permission: POWER,
  });
}

/** `PUT` (at once, `null`) or `POST` (a task) `.../config`: config keys, `delete`, `skiplock` and `digest`. */
export function configChange<M extends 'PUT' | 'POST'>(kind: GuestKind, method: M, summary: string) {
  return endpoint({
    method,
    path: `/nodes/{node}/${kind.type}/{vmid}/config`,
    summary,
    parameters: z.object({
      ...GUEST,
      ...configParams(kind.keys),
      ...(kind.type === 'qemu' ? { cdrom: CDROM } : {}),
      delete: listParam(
        stringParam({
          description: 'Config keys, separated by commas.',
          pattern: /^[a-z][a-z0-9_-]*(?:[,;\s]+[a-z][a-z0-9_-]*)*$/,
          patternHint: 'must be config keys',
        }),
        { description: 'Keys to remove, separated by commas (or repeated).' },
      ).optional(),
      skiplock: booleanParam({
        description: "Ignore the guest's lock (root@pam only); with `delete=lock`, remove it, as PVE's `qm unlock`.",
      }).optional(),
      digest: stringParam({
        description: 'The `digest` of the config this change is based on: refused (409) when the config has changed since.',
        pattern: /^[0-9a-f]{40}$/,
        patternHint: 'must be a SHA-1 digest (40 hex digits)',
      }).optional(),
    }),
    returns: (method === 'PUT' ? z.null() : UPID) as M extends 'PUT' ? z.ZodNull : typeof UPID,
    permission: CONFIGURE,
  });
}

/** What every kind of guest serves at `/nodes/{node}/<qemu|lxc>`. */
export function guestEndpoints(kind: GuestKind) {
  const base = `/nodes/{node}/${kind.type}`;
  const one = `${base}/{vmid}`;
  return {
    list: endpoint({
      method: 'GET',
      path: base,
      summary: `The node's ${kind.type === 'qemu' ? 'VMs' : 'containers'} the caller may audit`,
      parameters: z.object({
        ...NODE,
        full: booleanParam({ description: 'Accepted for PVE clients; the entries are the same.' }).optional(),
      }),
      returns: z.array(GuestStatus),
      permission: { kind: 'authenticated' },
    }),
    index: endpoint({
      method: 'GET',
      path: one,
      summary: "The guest's sub-resources",
      parameters: z.object(GUEST),
      returns: z.array(z.object({ subdir: z.string() })),
      permission: AUDIT,
    }),
    destroy: endpoint({
      method: 'DELETE',
      path: one,
      summary: 'Destroy the guest and its volumes',
      parameters: z.object({
        ...GUEST,
        purge: booleanParam({
          description:
            'Also remove its HA resource: without it, destroying a guest under HA is refused (409), as PVE does. (Backup jobs naming the guest skip it once it is gone.)',
        }).optional(),
        force: booleanParam({ description: 'Stop a running guest first (without it, destroying a running guest is refused).' }).optional(),
        'destroy-unreferenced-disks': booleanParam({
          description: 'Accepted for PVE clients: Corral knows no unreferenced volumes of a guest.',
        }).optional(),
      }),
      returns: UPID,
      permission: ALLOCATE,
    }),
    status: endpoint({
      method: 'GET',
      path: `${one}/status`,
      summary: "The guest's current status (PVE lists sub-commands here)",
      parameters: z.object(GUEST),
      returns: GuestStatus,
      permission: AUDIT,
    }),
    current: endpoint({
      method: 'GET',
      path: `${one}/status/current`,
      summary: "The guest's current status",
      parameters: z.object(GUEST),
      returns: GuestStatus,
      permission: AUDIT,
    }),
    start: powerAction(kind, 'start', 'Start the guest'),
    stop: powerAction(kind, 'stop', 'Stop the guest at once', {
      'overrule-shutdown': booleanParam({
        description:
          "Accepted for PVE clients (Telmate's provider sends it): PVE aborts a shutdown task still running; Corral's stop waits for it to end instead.",
      }).optional(),
    }),
    shutdown: powerAction(kind, 'shutdown', 'Shut the guest down cleanly', {
      timeout: SHUTDOWN_TIMEOUT.optional(),
      forceStop: booleanParam({ description: 'Stop it when the timeout passes.' }).optional(),
    }),
    reboot: powerAction(kind, 'reboot', 'Shut down and start again (pending changes apply)', { timeout: SHUTDOWN_TIMEOUT.optional() }),
    resume: powerAction(kind, 'resume', 'Resume a paused guest'),
    config: endpoint({
      method: 'GET',
      path: `${one}/config`,
      summary: "The guest's configuration with its `digest`",
      parameters: z.object({
        ...GUEST,
        current: booleanParam({ description: 'Accepted for PVE clients: Corral has no pending values.' }).optional(),
      }),
      returns: configSchema(kind, {
        digest: z.string().meta({
          description: 'SHA-1 of the configuration: give it back with a change to refuse the change when the configuration changed since.',
        }),
        lock: z.string().optional().meta({
          description: 'The operation that holds the guest (`create`, `backup`, `clone`, `migrate`, ...), as PVE keeps it in the config.',
        }),
      }),
      permission: AUDIT,
    }),
    setConfig: configChange(kind, 'PUT', "Change the guest's configuration (applies at its next start when it runs)"),
    clone: endpoint({
      method: 'POST',
      path: `${one}/clone`,
      summary:
        'Copy the stopped guest (or template) into a new guest: a full clone copies every volume, a linked clone of a VM template makes overlays of its disks',
      parameters: z.object({
        ...GUEST,
        newid: integerParam({ description: 'The new guest id.', min: 100, max: 999_999_999 }),
        [kind.type === 'qemu' ? 'name' : 'hostname']: configParam(DNS_NAME).optional().meta({ description: 'The new name.' }),
        description: stringParam({ description: 'Notes of the new guest.', maxLength: 8192 }).optional(),
        full: booleanParam({
          description: 'A full clone; 0 is a linked clone, only of a VM template (the default for VM templates, as in PVE).',
        }).optional(),
        target: nodeParam().optional().meta({
          description: 'The node of the new VM (default: this one): it is made here, then moved there (containers: this node only).',
        }),
        storage: stringParam({
          description: 'The storage of the copied volumes (default: each where it is).',
          pattern: /^[A-Za-z][A-Za-z0-9_.-]*$/,
          patternHint: 'must be a storage id',
        }).optional(),
        format: z
          .enum(['qcow2', 'raw'], { error: 'must be qcow2 or raw' })
          .optional()
          .meta({ description: "The image format of the copied VM disks (default: as the source's)." }),
        pool: POOL,
      }),
      returns: UPID,
      permission: {
        kind: 'allOf',
        checks: [
          on(['VM.Clone']),
          {
            kind: 'anyOf',
            checks: [
              { kind: 'privileges', path: '/vms/{newid}', privileges: ['VM.Allocate'] },
              { kind: 'privileges', path: '/pool/{pool}', privileges: ['VM.Allocate'] },
            ],
          },
        ],
      },
    }),
  };
}

/** The parameters of a create: the kind's config keys, `vmid`, `start`, `pool`, and what `extra` adds. */
export function createParams<S extends z.ZodRawShape>(kind: GuestKind, extra: S) {
  return z.object({
    ...GUEST,
    ...configParams(kind.keys),
    start: booleanParam({ description: 'Start the guest once created.' }).optional(),
    pool: POOL,
    ...extra,
  });
}

const POOL = poolidParam().optional().meta({ description: 'Add the new guest to this pool.' });
