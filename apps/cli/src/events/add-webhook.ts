import { readFile } from 'node:fs/promises';
import type { LocalContext } from '../command-line/command.js';
import { LocalFailure } from '../command-line/local-failure.js';

const WEBHOOKS = '/cluster/notifications/endpoints/webhook';
const MATCHERS = '/cluster/notifications/matchers';

/** `corral events webhook add`, its arguments checked. */
export interface AddWebhook {
  readonly name: string;
  readonly url: string;
  /** Undefined: every kind. */
  readonly kinds: readonly string[] | undefined;
  /** Absolute. */
  readonly secretFile: string | undefined;
  readonly allowLocal: boolean;
}

/**
 * Makes the webhook `<name>` (the key of `secretFile` as its `signing` secret) and the matcher
 * `<name>` that sends it the events of `kinds`. When the matcher cannot be made (an unknown kind,
 * a matcher of that name), the webhook is deleted again, so that the command leaves both or
 * neither.
 */
export async function addWebhook(request: AddWebhook, context: LocalContext): Promise<number> {
  const secret = request.secretFile === undefined ? undefined : await signingKey(request.secretFile);
  const api = await context.api();
  await api.send({
    method: 'POST',
    path: WEBHOOKS,
    params: {
      name: request.name,
      url: request.url,
      method: 'post',
      secret: secret === undefined ? undefined : `name=signing,value=${secret.toString('base64')}`,
      'allow-local': request.allowLocal ? '1' : undefined,
      comment: 'corral events webhook add',
    },
  });
  try {
    await api.send({
      method: 'POST',
      path: MATCHERS,
      params: {
        name: request.name,
        'match-field': request.kinds === undefined ? undefined : `exact:type=${request.kinds.join(',')}`,
        target: request.name,
        comment: `sends webhook '${request.name}' its events`,
      },
    });
  } catch (error) {
    await api.send({ method: 'DELETE', path: `${WEBHOOKS}/${encodeURIComponent(request.name)}`, params: {} }).catch(() => undefined);
    throw error;
  }
  const what = request.kinds === undefined ? 'every event' : `the events ${request.kinds.join(', ')}`;
  context.output.err(
    `corral: webhook '${request.name}' gets ${what}${secret === undefined ? '' : ', signed (X-Corral-Signature)'}; its deliveries: 'corral get ${WEBHOOKS}/${request.name}/deliveries'\n`,
  );
  return 0;
}

/** The file's bytes without a final line break (as `echo` writes one). */
async function signingKey(path: string): Promise<Buffer> {
  let content: Buffer;
  try {
    content = await readFile(path);
  } catch (error) {
    throw new LocalFailure(`cannot read the secret file ${path}: ${(error as Error).message}`);
  }
  const key = content.subarray(0, content.length - (content.at(-1) === 0x0a ? (content.at(-2) === 0x0d ? 2 : 1) : 0));
  if (key.length === 0) throw new LocalFailure(`the secret file ${path} is empty`);
  return key;
}
