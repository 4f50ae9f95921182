import { z } from 'zod';
import { endpoint } from '../../../http/endpoint.js';
import { integerParam } from '../../../http/params.js';
import { MAY_READ, notificationNameParam } from '../notification-params.js';

/* Corral's addition to PVE's webhook targets (docs/webhooks.md "Deliveries"): what was sent, and how each attempt went. */

const STATES = ['pending', 'delivered', 'failed'] as const;

export const DeliveryEntry = z.object({
  id: z.number().int().meta({ description: 'The delivery (`X-Corral-Delivery`).' }),
  'event-seq': z.number().int(),
  'event-id': z.string(),
  event: z.string().meta({ description: 'The event kind.' }),
  node: z.string(),
  vmid: z.number().int().optional(),
  state: z.enum(STATES).meta({
    description:
      '`pending`: to be sent, or retried; `delivered`: a 2xx answer; `failed`: the retry window ended, or the address was refused.',
  }),
  attempts: z.number().int(),
  created: z.number().int().meta({ description: 'Epoch seconds when it was dispatched: retries end the retry window after this.' }),
  'last-attempt': z.number().int().optional().meta({ description: 'Epoch seconds.' }),
  'last-status': z.number().int().optional().meta({ description: "The receiver's HTTP status at the last attempt." }),
  'last-error': z.string().optional().meta({ description: 'Why the last attempt failed.' }),
  'next-attempt': z
    .number()
    .int()
    .optional()
    .meta({ description: 'Epoch seconds, while pending: when it is sent next (once those before it in its order are done).' }),
});
export type DeliveryEntry = z.infer<typeof DeliveryEntry>;

export const DELIVERY_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/cluster/notifications/endpoints/webhook/{name}/deliveries',
    summary: "List a webhook's latest deliveries",
    description: "Corral's: newest first; delivered and failed ones are kept for 7 days.",
    parameters: z.object({
      name: notificationNameParam('The webhook.'),
      limit: integerParam({ description: 'How many (default 50).', min: 1, max: 1000 }).optional(),
      state: z
        .enum(STATES, { error: (issue) => `expected pending, delivered or failed, got '${String(issue.input)}'` })
        .optional()
        .meta({ description: 'Only deliveries in this state.' }),
    }),
    returns: z.array(DeliveryEntry),
    permission: MAY_READ,
  }),
};

export type DeliveryEndpoints = typeof DELIVERY_ENDPOINTS;
