import { z } from 'zod';
import { JsonValue, OpaqueId, Sequence } from '../fields.js';

/**
 * Agent → control plane: the command of request `id` succeeded. `result` is checked against the
 * command's result schema by `parseCommandResult` on the control plane, which knows the command it
 * asked for; a result that fails it ends the request (and its task) with an error naming the field.
 * Re-sent after a reconnect until acknowledged (`AckFrame`).
 */
export const ResultFrame = z.object({
  type: z.literal('result'),
  seq: Sequence,
  id: OpaqueId,
  /** The command's result; `null` for a command that returns nothing. */
  result: JsonValue,
});
export type ResultFrame = z.infer<typeof ResultFrame>;

/**
 * Why a request failed, so the control plane can pick the HTTP status and the task's end text:
 * - `invalid-params`: the parameters failed the catalog's schema (the message names the field);
 * - `unknown-command`: this agent does not know the command (an older agent);
 * - `timeout`: the command ran longer than `timeoutMs` and was killed;
 * - `failed`: the command ran and failed; the message is the error text the task ends with;
 * - `not-found`: what the command names (a package, an interface) does not exist on the host; the
 *   message says which (`... does not exist`);
 * - `unavailable`: the agent cannot run it now: it is draining for shutdown, or a tool the command
 *   needs is missing on the host.
 */
export const FailureCode = z.enum(['invalid-params', 'unknown-command', 'timeout', 'failed', 'not-found', 'unavailable']);
export type FailureCode = z.infer<typeof FailureCode>;

/**
 * Agent → control plane: the command of request `id` did not succeed. Re-sent after a reconnect
 * until acknowledged (`AckFrame`).
 */
export const FailureFrame = z.object({
  type: z.literal('failure'),
  seq: Sequence,
  id: OpaqueId,
  code: FailureCode,
  message: z.string().min(1, 'must say what went wrong'),
});
export type FailureFrame = z.infer<typeof FailureFrame>;
