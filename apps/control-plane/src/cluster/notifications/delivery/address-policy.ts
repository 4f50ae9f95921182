import { refusedKind } from '@corral/outbound-address';

/*
 * Where a webhook may send (docs/webhooks.md "Addresses"): not, unless the webhook has
 * `allow-local`, to local addresses (this host, link-local addresses, the cloud metadata
 * services). Private networks are allowed: receivers on the LAN are the usual case for a cluster
 * manager.
 */

/** Why `address` (an IP literal) is refused without `allow-local`, to follow `<address> is` in a message; null when it is not refused. */
export function localAddressReason(address: string): string | null {
  const kind = refusedKind(address, { refusePrivate: false });
  return kind === null ? null : `${kind}, which the webhook may reach only with allow-local=1`;
}
