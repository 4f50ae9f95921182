import { resolve } from 'node:path';
import { defineLocalCommand } from '../command-line/command.js';
import { requiredOption } from '../command-line/option-values.js';
import { UsageError } from '../command-line/usage-error.js';
import { addWebhook } from '../events/add-webhook.js';

/** An event kind as the API names them (the API checks that it exists). */
const KIND = /^[a-z]+(-[a-z]+)*$/;

/** `corral events webhook add`: a webhook target and the matcher that sends it events. */
export const EVENTS_WEBHOOK_ADD_COMMAND = defineLocalCommand({
  name: 'events webhook add',
  summary:
    "Register a webhook receiver: each event (of the kinds given) is POSTed to it as the event's JSON ({event, node, vmid, timestamp}), signed when a secret is given; makes the webhook <name> and a matcher <name> that targets it",
  positionals: ['name'],
  options: {
    url: { value: 'URL', description: 'required: where to POST, an http:// or https:// URL' },
    'event-type': { value: 'KIND[,KIND]', description: 'only these kinds, e.g. vm-start,vm-stop (default: every event)' },
    'secret-file': {
      value: 'FILE',
      description: 'sign each request with the key in this file (its content, without a final line break): X-Corral-Signature',
    },
    'allow-local': { value: '', description: 'the URL may reach loopback, link-local and cloud metadata addresses (refused by default)' },
  },
  task: (args) => {
    const url = requiredOption('url', args.url);
    const kinds = args['event-type']?.split(',').map((kind) => kind.trim());
    const bad = kinds?.find((kind) => !KIND.test(kind));
    if (bad !== undefined)
      throw new UsageError(`--event-type must be event kinds separated by commas, such as vm-start,vm-stop, not '${bad}'`);
    const request = {
      name: args.name,
      url,
      kinds,
      secretFile: args['secret-file'] === undefined ? undefined : resolve(args['secret-file']),
      allowLocal: args['allow-local'] !== undefined,
    };
    return (context) => addWebhook(request, context);
  },
});
