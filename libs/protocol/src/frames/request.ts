import { z } from 'zod';
import { JsonValue, OpaqueId, Upid } from '../fields.js';

/**
 * Control plane → agent: run a command of the catalog (COMMANDS).
 *
 * The frame itself is checked here; its `command` and `params` are checked against the catalog by
 * `parseCommandRequest`, so that an agent can answer an unknown command or bad parameters with a
 * `failure` (`unknown-command`, `invalid-params`) instead of dropping the connection: an older
 * agent stays usable by a newer control plane for the commands it knows.
 *
 * The agent answers every request exactly once, with `result` or `failure` (and may send `log`
 * frames before that). It kills a command that runs longer than `timeoutMs` and answers `timeout`.
 * After a reconnect within the same agent session the control plane sends unanswered requests
 * again with the same `id`; the agent does not run a request it has already seen a second time.
 */
export const RequestFrame = z.object({
  type: z.literal('request'),
  /** Chosen by the control plane and never reused for a node (a random UUID); the answer carries it back. */
  id: OpaqueId,
  /** A command name of the catalog, dotted `noun.verb` (`node.dns.set`). */
  command: z.string().regex(/^[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)+$/, 'must be a dotted command name such as node.dns.set'),
  params: z.record(z.string(), JsonValue),
  /** How long the agent lets the command run, in milliseconds (at most a week: a backup of a large disk can take a day). */
  timeoutMs: z.int().min(1).max(604_800_000),
  /**
   * The task this request does the work of, and with the command its
   * idempotency key: an agent that is running or has run this command for this task in its session
   * does not start it again, whichever replica asks (a task may run several commands, each once). A task whose agent session ended before it was answered is ended by the control plane
   * with an error, never run again on the new session.
   */
  upid: Upid.optional(),
  /**
   * Which run of `command` this is, where one task runs a command several times (a vzdump's
   * guests, by vmid): with `upid` and `command`, the idempotency key.
   */
  step: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, dots, underscores or hyphens')
    .optional(),
});
export type RequestFrame = z.infer<typeof RequestFrame>;
