import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import type { GuestKind } from '../guest-kinds.js';
import { GUEST } from '../guest.endpoints.js';

/** One entry of PVE's pending list; Corral has no pending values, so only `key` and `value` (docs/guests.md "Pending changes"). */
export const PendingEntry = z.object({
  key: z.string().meta({ description: 'Configuration option name.' }),
  value: z
    .union([z.string(), z.number()])
    .optional()
    .meta({ description: "Current value, in the key's JSON type as the config answers it." }),
  pending: z
    .union([z.string(), z.number()])
    .optional()
    .meta({ description: 'Pending value: never, as Corral applies a change to the config at once.' }),
  delete: z
    .number()
    .int()
    .min(0)
    .max(2)
    .optional()
    .meta({ description: 'A pending delete: never, as Corral removes a deleted key at once.' }),
});
export type PendingEntry = z.infer<typeof PendingEntry>;

/** `GET /nodes/{node}/<qemu|lxc>/{vmid}/pending`. */
export function pendingEndpoint(kind: GuestKind) {
  return endpoint({
    method: 'GET',
    path: `/nodes/{node}/${kind.type}/{vmid}/pending`,
    summary: 'The configuration as PVE lists it with pending changes: every key with its current value, none pending',
    parameters: z.object(GUEST),
    returns: z.array(PendingEntry),
    permission: { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.Audit'] },
  });
}
