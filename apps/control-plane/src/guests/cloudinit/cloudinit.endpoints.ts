import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { GUEST } from '../guest.endpoints.js';

const one = '/nodes/{node}/qemu/{vmid}/cloudinit';
const on = (privilege: 'VM.Audit' | 'VM.Config.Cloudinit') =>
  ({ kind: 'privileges', path: '/vms/{vmid}', privileges: [privilege] }) as const;

/** One cloud-init key: its `value` as the drive was last generated from it, its `pending` new value, or `delete: 1` when it was removed since. */
export const CloudinitEntry = z.object({
  key: z.string().meta({ description: 'The config key.' }),
  value: z.string().optional().meta({ description: 'The value the drive was last generated from.' }),
  pending: z.string().optional().meta({ description: 'The new value, which the next generation writes.' }),
  delete: z.literal(1).optional().meta({ description: 'The key was removed since the drive was generated.' }),
});

/** `/nodes/{node}/qemu/{vmid}/cloudinit` and `.../dump` (docs/guests.md "Cloud-init"). */
export const CLOUDINIT_ENDPOINTS = {
  pending: endpoint({
    method: 'GET',
    path: one,
    summary: 'The cloud-init keys, each with the value its drive was generated from and its pending new value',
    parameters: z.object(GUEST),
    returns: z.array(CloudinitEntry),
    permission: on('VM.Audit'),
  }),
  update: endpoint({
    method: 'PUT',
    path: one,
    summary: 'Generate the cloud-init drive again from the config',
    description: 'Answered once the drive is written (a VM that runs reads it at its next boot). A VM without a cloud-init drive is a 409.',
    parameters: z.object(GUEST),
    returns: z.null(),
    permission: on('VM.Config.Cloudinit'),
  }),
  dump: endpoint({
    method: 'GET',
    path: `${one}/dump`,
    summary: 'A generated cloud-init file, as the drive would hold it now',
    parameters: z.object({
      ...GUEST,
      type: z.enum(['user', 'network', 'meta'], { error: 'must be user, network or meta' }).meta({ description: 'Which file.' }),
    }),
    returns: z.string(),
    permission: on('VM.Audit'),
  }),
};
