import { z } from 'zod';
import { OpaqueId } from '../fields.js';

/**
 * Control plane → agent: stop the command of request `id` (its task was stopped, `DELETE
 * /nodes/{node}/tasks/{upid}`). The agent aborts the command's signal and answers the request with
 * a `failed` failure; the control plane has already ended the request on its side, so that answer
 * is only acknowledged. A cancel of a request that is not running (it has ended, or never arrived)
 * changes nothing. Not re-sent: a cancel lost with the connection leaves the command to its timeout.
 */
export const CancelFrame = z.object({
  type: z.literal('cancel'),
  /** The `id` of the request whose command to stop. */
  id: OpaqueId,
});
export type CancelFrame = z.infer<typeof CancelFrame>;
