import { checkedAddress, downloadRefusal, pinnedLookup, type Address } from '@corral/outbound-address';
import type { ParamsOf } from '@corral/protocol';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/*
 * Requests for downloads (docs/storage.md "Downloads"): the URL's host is resolved on this node,
 * every address it resolves to is checked, and the connection goes to the address checked, so a
 * name that resolves elsewhere a moment later (DNS rebinding) cannot turn the request to this
 * host or its LAN. A redirect is a new URL, checked again.
 */

/** The URL and how to reach it, as the protocol's download commands give them. */
export type Outbound = Pick<ParamsOf<'storage.download'>, 'url' | 'verifyCertificates' | 'allowNetworks'>;

/** Redirects followed before giving up (wget, which PVE runs, follows 20). */
const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** A server that sends nothing for this long is given up on. */
const IDLE_MS = 60_000;

/** The answer to `method` of the URL, after its redirects: the caller reads or discards its body. */
export async function openUrl(
  outbound: Outbound,
  method: 'GET' | 'HEAD',
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<IncomingMessage> {
  const refusal = downloadRefusal(outbound.allowNetworks);
  let url = new URL(outbound.url);
  for (let redirects = 0; ; redirects++) {
    const address = await checkedAddress(url, refusal, signal);
    const response = await send(url, address, method, outbound.verifyCertificates, signal);
    const status = response.statusCode ?? 0;
    if (!REDIRECTS.has(status)) return response;
    response.resume();
    const location = response.headers.location;
    if (location === undefined) throw new Error(`${url.host} answered ${status} without a Location to go to`);
    if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects, the last to ${location}`);
    const next = new URL(location, url);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new Error(`a redirect to ${next.protocol} URL, which a download does not follow`);
    log(`redirected to ${next.href}`);
    url = next;
  }
}

function send(
  url: URL,
  address: Address,
  method: 'GET' | 'HEAD',
  verifyCertificates: boolean,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const options = { method, lookup: pinnedLookup(address), agent: false, signal, headers: { 'user-agent': 'corral-agent' } } as const;
  return new Promise((resolve, reject) => {
    const req =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...options, rejectUnauthorized: verifyCertificates }, resolve)
        : httpRequest(url, options, resolve);
    req.setTimeout(IDLE_MS, () => req.destroy(new Error(`${url.host} sent nothing for ${IDLE_MS / 1000} s`)));
    req.on('error', (error) => reject(new Error(`cannot reach ${url.host}: ${error.message}`)));
    req.end();
  });
}
