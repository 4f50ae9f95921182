import { z } from 'zod';
import { commentParam } from '../../../access/access-params.js';
import { endpoint } from '../../../http/endpoint.js';
import { booleanParam, commaListParam, listParam, stringParam } from '../../../http/params.js';
import { MAY_MODIFY, MAY_READ, MAY_USE, notificationNameParam, Origin } from '../notification-params.js';
import { SetFlag } from '../../../http/entry-changes.js';
import { MatchRuleError, parseFieldRule, parseSeverityRule } from './matcher-rules.js';

/*
 * Matchers on PVE's paths and names (`/cluster/notifications/matchers`;
 * docs/webhooks.md "Matchers"): which events go to which targets. Rules are checked when written,
 * so a matcher naming an unknown event type or field is a 400 rather than one that never matches.
 */

const NAME = { name: notificationNameParam('The matcher.') };

/** A list of rule strings, each checked by `parse`. */
function rulesParam(parse: (text: string) => unknown, description: string) {
  const item = stringParam({ description: 'A rule.', maxLength: 1024 }).superRefine((text, context) => {
    try {
      parse(text);
    } catch (error) {
      if (!(error instanceof MatchRuleError)) throw error;
      context.addIssue({ code: 'custom', message: error.message });
    }
  });
  return listParam(item, { description });
}

const SETTINGS = {
  'match-field': rulesParam(
    parseFieldRule,
    "Rules on the event's fields, repeated: `exact:<field>=<value>[,<value>...]` or `regex:<field>=<regex>`; the fields are `type` (the event kind), `node` (or `hostname`), `vmid` and `pool`.",
  ).optional(),
  'match-severity': rulesParam(
    parseSeverityRule,
    'Severities, comma-separated, repeated: `info`, `notice`, `warning`, `error`, `unknown` (node-down and failed backups are `error`, other events `info`).',
  ).optional(),
  'match-calendar': listParam(z.string(), { description: "PVE's calendar rules: not supported by Corral." })
    .refine(() => false, 'Corral does not match on calendar events')
    .optional(),
  mode: z
    .enum(['all', 'any'], { error: (issue) => `expected all or any, got '${String(issue.input)}'` })
    .optional()
    .meta({ description: 'Whether all rules must match (default) or any one.' }),
  'invert-match': booleanParam({ description: 'Select the events the rules do not match.' }).optional(),
  target: listParam(notificationNameParam('A target.'), { description: 'The targets to notify, repeated; each must exist.' }).optional(),
  comment: commentParam().optional(),
  disable: booleanParam({ description: 'Select nothing.' }).optional(),
};

/** The settings `delete` may reset. */
export const DELETABLE = ['match-field', 'match-severity', 'mode', 'invert-match', 'target', 'comment', 'disable'] as const;

export const MatcherEntry = z.object({
  name: z.string(),
  'match-field': z.array(z.string()).optional(),
  'match-severity': z.array(z.string()).optional(),
  mode: z.enum(['all', 'any']),
  'invert-match': SetFlag,
  target: z.array(z.string()).optional(),
  comment: z.string().optional(),
  disable: SetFlag,
  origin: Origin,
});
export type MatcherEntry = z.infer<typeof MatcherEntry>;

const BASE = '/cluster/notifications/matchers';

export const MATCHER_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: BASE,
    summary: 'List the matchers',
    parameters: z.object({}),
    returns: z.array(MatcherEntry),
    permission: MAY_USE,
  }),
  create: endpoint({
    method: 'POST',
    path: BASE,
    summary: 'Create a matcher',
    description:
      'Each event the rules select is sent to each target named (once per target, however many matchers select it). Rules are evaluated when the event is dispatched.',
    parameters: z.object({ ...NAME, ...SETTINGS }),
    returns: z.null(),
    permission: MAY_MODIFY,
  }),
  get: endpoint({
    method: 'GET',
    path: `${BASE}/{name}`,
    summary: 'Read a matcher',
    parameters: z.object(NAME),
    returns: MatcherEntry.extend({ digest: z.string().meta({ description: 'SHA-1 of the settings, for `digest` in a change.' }) }),
    permission: MAY_READ,
  }),
  update: endpoint({
    method: 'PUT',
    path: `${BASE}/{name}`,
    summary: 'Change a matcher',
    description: 'Sets what is given (a list replaces the stored one) and resets what `delete` names.',
    parameters: z.object({
      ...NAME,
      ...SETTINGS,
      delete: commaListParam(
        z.enum(DELETABLE, { error: (issue) => `cannot delete '${String(issue.input)}'` }),
        'Settings to reset, comma-separated.',
      ).optional(),
      digest: stringParam({
        description: 'The `digest` of the read this change is based on: refused (409) if the matcher changed since.',
        maxLength: 64,
      }).optional(),
    }),
    returns: z.null(),
    permission: MAY_MODIFY,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: `${BASE}/{name}`,
    summary: 'Delete a matcher',
    parameters: z.object(NAME),
    returns: z.null(),
    permission: MAY_MODIFY,
  }),
};

export type MatcherEndpoints = typeof MATCHER_ENDPOINTS;
