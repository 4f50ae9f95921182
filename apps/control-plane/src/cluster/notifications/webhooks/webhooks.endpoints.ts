import { z } from 'zod';
import { commentParam } from '../../../access/access-params.js';
import { endpoint } from '../../../http/endpoint.js';
import { booleanParam, commaListParam, integerParam, stringParam } from '../../../http/params.js';
import { MAY_AUDIT, MAY_MODIFY, MAY_READ, MAY_USE, MAY_WRITE_TARGET, notificationNameParam, Origin } from '../notification-params.js';
import { SetFlag } from '../../../http/entry-changes.js';
import { namedValuesParam } from './named-values.js';

/*
 * Webhook targets on PVE's paths and names (`/cluster/notifications/endpoints/webhook`;
 * docs/webhooks.md): Corral sends the event's JSON body by POST, so PVE's `method` other than post
 * and its `body` template are refused saying so; `allow-local` and `timeout` are Corral's.
 */

const NAME = { name: notificationNameParam('The webhook.') };

/** An http(s) URL without credentials or templates; where it may point is checked against `allow-local` (address-policy.ts). */
const urlParam = () => {
  const description = 'Where to POST each event: an http:// or https:// URL.';
  return stringParam({ description, maxLength: 2048 })
    .superRefine((text, context) => {
      const problem = urlProblem(text);
      if (problem !== null) context.addIssue({ code: 'custom', message: problem });
    })
    .meta({ description });
};

function urlProblem(text: string): string | null {
  if (text.includes('{{')) return "Corral does not fill in templates in the URL: give the receiver's URL as it is";
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url === null) return `'${text}' is not a URL`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the URL must be http:// or https://, not ${url.protocol}//`;
  if (url.username !== '' || url.password !== '')
    return 'the URL must not hold credentials: send them in a header whose value is {{ secrets.<name> }}';
  return null;
}

const SETTINGS = {
  method: z
    .enum(['post', 'put', 'get'], { error: (issue) => `expected post, put or get, got '${String(issue.input)}'` })
    .refine((method) => method === 'post', 'Corral sends each event by POST: give method=post')
    .optional()
    .meta({ description: "PVE's HTTP method; Corral sends POST, so only `post` is accepted (default)." }),
  header: namedValuesParam(
    'header',
    'Extra headers: `name=<name>,value=<base64 of value>`, repeated; a value may hold `{{ secrets.<name> }}`.',
  ).optional(),
  secret: namedValuesParam(
    'secret',
    'Secrets: `name=<name>,value=<base64 of value>`, repeated. The one named `signing` is the key of `X-Corral-Signature`. Reads show names only; in a change, an item without `value` keeps that secret.',
  ).optional(),
  body: z
    .string()
    .refine(() => false, "Corral sends the event's JSON body ({event, vmid, timestamp, node}); body templates are not supported")
    .optional()
    .meta({ description: "PVE's body template: refused, Corral sends the event's JSON body." }),
  comment: commentParam().optional(),
  disable: booleanParam({ description: 'Send nothing to it (deliveries already made wait until it is enabled again).' }).optional(),
  'allow-local': booleanParam({
    description: "Corral's: may reach loopback, link-local and cloud metadata addresses (refused by default).",
  }).optional(),
  timeout: integerParam({ description: "Corral's: seconds a request may take, answer included (default 10).", min: 1, max: 60 }).optional(),
};

/** The settings `delete` may reset. */
export const DELETABLE = ['header', 'secret', 'comment', 'disable', 'allow-local', 'timeout'] as const;

export const WebhookEntry = z.object({
  name: z.string(),
  url: z.string(),
  method: z.literal('post'),
  header: z.array(z.string()).optional().meta({ description: '`name=<name>,value=<base64 of value>`.' }),
  secret: z.array(z.string()).optional().meta({ description: '`name=<name>`: the names only; values are never shown.' }),
  comment: z.string().optional(),
  disable: SetFlag,
  'allow-local': SetFlag,
  timeout: z.number().int(),
  origin: Origin,
});
export type WebhookEntry = z.infer<typeof WebhookEntry>;

export const TargetEntry = z.object({
  name: z.string(),
  type: z.literal('webhook').meta({ description: "Corral's targets are webhooks." }),
  comment: z.string().optional(),
  disable: SetFlag,
  origin: Origin,
});
export type TargetEntry = z.infer<typeof TargetEntry>;

const BASE = '/cluster/notifications/endpoints/webhook';

export const WEBHOOK_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: BASE,
    summary: 'List the webhook targets',
    parameters: z.object({}),
    returns: z.array(WebhookEntry),
    permission: MAY_AUDIT,
  }),
  create: endpoint({
    method: 'POST',
    path: BASE,
    summary: 'Create a webhook target',
    description: 'Events reach it through a matcher that names it (`/cluster/notifications/matchers`).',
    parameters: z.object({ ...NAME, url: urlParam(), ...SETTINGS }),
    returns: z.null(),
    permission: MAY_WRITE_TARGET,
  }),
  get: endpoint({
    method: 'GET',
    path: `${BASE}/{name}`,
    summary: 'Read a webhook target',
    parameters: z.object(NAME),
    returns: WebhookEntry.extend({ digest: z.string().meta({ description: 'SHA-1 of the settings, for `digest` in a change.' }) }),
    permission: MAY_READ,
  }),
  update: endpoint({
    method: 'PUT',
    path: `${BASE}/{name}`,
    summary: 'Change a webhook target',
    description:
      'Sets what is given and resets what `delete` names. A `header` or `secret` list replaces the stored one. Pending deliveries are sent with the new settings.',
    parameters: z.object({
      ...NAME,
      url: urlParam().optional(),
      ...SETTINGS,
      delete: commaListParam(
        z.enum(DELETABLE, { error: (issue) => `cannot delete '${String(issue.input)}'` }),
        'Settings to reset, comma-separated.',
      ).optional(),
      digest: stringParam({
        description: 'The `digest` of the read this change is based on: refused (409) if the webhook changed since.',
        maxLength: 64,
      }).optional(),
    }),
    returns: z.null(),
    permission: MAY_WRITE_TARGET,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: `${BASE}/{name}`,
    summary: 'Delete a webhook target',
    description: 'Refused while a matcher names it. Its deliveries, pending or not, go with it.',
    parameters: z.object(NAME),
    returns: z.null(),
    permission: MAY_MODIFY,
  }),
  targets: endpoint({
    method: 'GET',
    path: '/cluster/notifications/targets',
    summary: 'List the notification targets of every type',
    parameters: z.object({}),
    returns: z.array(TargetEntry),
    permission: MAY_USE,
  }),
};

export type WebhookEndpoints = typeof WEBHOOK_ENDPOINTS;
