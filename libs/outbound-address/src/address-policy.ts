import { BlockList, isIP } from 'node:net';

/*
 * Which addresses an outbound request of Corral's may reach. Local addresses are never reached
 * without the operator's say: this host (loopback, and the unspecified address, which reaches it
 * too), link-local addresses, and the cloud metadata services, which hand out credentials to anyone
 * who asks from inside the instance. Private networks are a second class: webhook receivers on the
 * LAN are the usual case, but a URL a user hands in (a download) must not probe the hosts' LAN.
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

const PRIVATE = new BlockList();
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
// Carrier-grade NAT's shared space, a provider's internal network.
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
// Not one host's address: multicast, and the broadcast address.
PRIVATE.addSubnet('224.0.0.0', 4, 'ipv4');
PRIVATE.addAddress('255.255.255.255', 'ipv4');
PRIVATE.addSubnet('ff00::', 8, 'ipv6');

export interface AddressPolicy {
  /** Refuse private networks too, not only local addresses. */
  readonly refusePrivate: boolean;
  /** Networks reached whatever the rules above say (`192.168.10.0/24`, `127.0.0.1/32`): the operator's own mirrors. */
  readonly allowed?: BlockList;
}

/**
 * What kind of address `address` (an IP literal) is, to follow `<address> is` in a message, when
 * the policy refuses it; null when it is allowed. IPv4-mapped IPv6 addresses count as their IPv4
 * address.
 */
export function refusedKind(address: string, policy: AddressPolicy): string | null {
  const family = isIP(address);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (policy.allowed?.check(address, type)) return null;
  if (LOCAL.check(address, type)) return 'a loopback, link-local or cloud metadata address';
  if (policy.refusePrivate && PRIVATE.check(address, type)) return 'a private network, shared or multicast address';
  return null;
}

/** Networks in CIDR notation (`10.1.0.0/16`, `2001:db8::/32`) as a BlockList; throws naming the first that is not one. */
export function networkList(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const network of networks) {
    const match = /^([^/]+)\/(\d{1,3})$/.exec(network);
    const family = isIP(match?.[1] ?? '');
    const prefix = Number(match?.[2]);
    if (!match?.[1] || family === 0 || prefix > (family === 4 ? 32 : 128))
      throw new Error(`'${network}' is not a network in CIDR notation (such as 192.168.10.0/24)`);
    list.addSubnet(match[1], prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** The host of a URL as an IP literal (without IPv6 brackets), or null for a name. */
export function literalHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? null : host;
}

/** Downloads into storages: local and private addresses are refused unless the operator allowed their network (the control plane's CORRAL_DOWNLOAD_ALLOW_NETWORKS). */
export function downloadRefusal(allowNetworks: readonly string[]): (address: string) => string | null {
  const policy = { refusePrivate: true, allowed: networkList(allowNetworks) };
  return (address) => {
    const kind = refusedKind(address, policy);
    return kind === null
      ? null
      : `${kind}, which a download reaches only when the operator allows its network (CORRAL_DOWNLOAD_ALLOW_NETWORKS)`;
  };
}
