import { AddressRefused, checkedAddress, pinnedLookup, type Address } from '@corral/outbound-address';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { localAddressReason } from './address-policy.js';

/** What one attempt came to: sent, to try again, or refused for good (an address the webhook may not reach). */
export type Outcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly status: number | null; readonly error: string }
  | { readonly kind: 'refused'; readonly error: string };

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly allowLocal: boolean;
}

/** Of a failed answer's body, what is kept for `last-error`; the rest is not read. */
const ERROR_BODY_BYTES = 512;

/**
 * POSTs one delivery (docs/webhooks.md "Requests"): the host is resolved and every address checked
 * against the address policy before connecting, and the connection goes to the address checked, so
 * a name that resolves differently a moment later (DNS rebinding) cannot redirect it. Redirects
 * are not followed; the whole exchange, answer included, has `timeoutMs`; of the answer's body
 * at most ERROR_BODY_BYTES are read. Never throws.
 */
export async function postWebhook(request: WebhookRequest): Promise<Outcome> {
  const url = new URL(request.url);
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const address = await checkedAddress(url, request.allowLocal ? () => null : localAddressReason, signal);
    const response = await post(url, address, request, signal);
    if (response.status >= 200 && response.status < 300) return { kind: 'delivered', status: response.status };
    const redirect =
      response.status >= 300 && response.status < 400
        ? ` (a redirect to ${response.location ?? 'nowhere'}, which Corral does not follow)`
        : '';
    return {
      kind: 'retry',
      status: response.status,
      error: `answered ${response.status}${redirect}${response.text ? `: ${response.text}` : ''}`,
    };
  } catch (error) {
    if (error instanceof AddressRefused) return { kind: 'refused', error: error.message };
    if (signal.aborted) return { kind: 'retry', status: null, error: `no answer within ${request.timeoutMs / 1000} s` };
    return { kind: 'retry', status: null, error: (error as Error).message };
  }
}

function post(
  url: URL,
  address: Address,
  request: WebhookRequest,
  signal: AbortSignal,
): Promise<{ status: number; location: string | undefined; text: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup: pinnedLookup(address),
        agent: false,
        signal,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (status >= 200 && status < 300) {
          res.destroy();
          return resolve({ status, location, text: '' });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          resolve({ status, location, text: oneLine(Buffer.concat(chunks).subarray(0, ERROR_BODY_BYTES).toString('utf8')) });
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= ERROR_BODY_BYTES) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
