import type { z } from 'zod';

/**
 * One command the control plane may ask an agent to run.
 *
 * `params` is a strict object, or a union of strict objects: the agent refuses a parameter it does
 * not know, because ignoring one (a newer control plane's option) would do something other than
 * what was asked. There are no defaults or transforms, so what is validated is what was sent.
 *
 * `result` describes the host as found: its strings are typed but not format-checked, so that a
 * host's odd but working resolv.conf cannot make the answer unreadable.
 */
export interface CommandDefinition {
  readonly description: string;
  readonly params: z.ZodType<Record<string, unknown>>;
  readonly result: z.ZodType;
}
