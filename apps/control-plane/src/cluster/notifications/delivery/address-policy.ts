import { BlockList, isIP } from 'node:net';

/*
 * Where a webhook may send (docs/webhooks.md "Addresses"): not, unless the webhook has
 * `allow-local`, to this host (loopback, and the unspecified address, which reaches it too), to
 * link-local addresses, or to the cloud metadata services, which hand out credentials to anyone
 * who asks from inside the instance. Private networks are allowed: receivers on the LAN are the
 * usual case for a cluster manager.
 */

const LOCAL = new BlockList();
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
LOCAL.addSubnet('0.0.0.0', 8, 'ipv4');
LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addAddress('::', 'ipv6');
LOCAL.addSubnet('fe80::', 10, 'ipv6');
// AWS's IPv6 metadata address and Alibaba's metadata address; the others' 169.254.169.254 is link-local.
LOCAL.addAddress('fd00:ec2::254', 'ipv6');
LOCAL.addAddress('100.100.100.200', 'ipv4');

/**
 * Why `address` (an IP literal) is refused without `allow-local`, to follow `<address> is` in a
 * message; null when it is not refused. IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function localAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0 || !LOCAL.check(address, family === 4 ? 'ipv4' : 'ipv6')) return null;
  return 'a loopback, link-local or cloud metadata address, which the webhook may reach only with allow-local=1';
}

/** The host of a URL as an IP literal (without IPv6 brackets), or null for a name. */
export function literalHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? null : host;
}
