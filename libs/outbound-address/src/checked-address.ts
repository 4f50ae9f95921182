import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { literalHost } from './address-policy.js';

/** An address a request connects to. */
export interface Address {
  readonly address: string;
  readonly family: number;
}

/** The URL's host is, or resolves to, an address the caller may not reach: refused for good, not worth a retry. */
export class AddressRefused extends Error {}

/** Why an address (an IP literal) is refused, to follow `<address> is` in a message; null when it may be reached. */
export type Refusal = (address: string) => string | null;

/**
 * The address to connect to for `url`: its literal host, or the first address its name resolves
 * to, once every address it resolves to passed `refusal` (a name with one bad address among good
 * ones is refused: which one a later lookup returns is the resolver's choice). Connect to exactly
 * this address (`pinnedLookup`), so that a name that resolves differently a moment later (DNS
 * rebinding) cannot redirect the request.
 */
export async function checkedAddress(url: URL, refusal: Refusal, signal: AbortSignal): Promise<Address> {
  const literal = literalHost(url);
  const addresses =
    literal !== null
      ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
      : await abortable(lookup(url.hostname, { all: true }), signal);
  for (const { address } of addresses) {
    const reason = refusal(address);
    if (reason !== null)
      throw new AddressRefused(literal === null ? `${url.hostname} resolves to ${address}, ${reason}` : `${address} is ${reason}`);
  }
  const [first] = addresses;
  if (first === undefined) throw new Error(`${url.hostname} resolves to no address`);
  return first;
}

/** A `lookup` for http(s) requests that answers `address` whatever the name: the connection goes where the check said. TLS still verifies the name. */
export function pinnedLookup(address: Address): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    promise.then(resolve, reject);
  });
}
