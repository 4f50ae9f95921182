import type { ContainerInterface } from '@corral/protocol';

interface IpAddressEntry {
  readonly ifname?: unknown;
  readonly address?: unknown;
  readonly addr_info?: readonly { readonly family?: unknown; readonly local?: unknown; readonly prefixlen?: unknown }[];
}

/** The interfaces of `ip -j address show`: each with its MAC and its IPv4 and IPv6 addresses. */
export function parseIpAddresses(json: string): ContainerInterface[] {
  const entries = JSON.parse(json) as unknown;
  if (!Array.isArray(entries)) throw new Error('ip -j address did not answer a list');
  return (entries as IpAddressEntry[]).flatMap((entry) => {
    if (typeof entry.ifname !== 'string') return [];
    const addresses = (entry.addr_info ?? []).flatMap((info): ContainerInterface['addresses'] => {
      const { family, local, prefixlen } = info;
      return (family === 'inet' || family === 'inet6') && typeof local === 'string' && typeof prefixlen === 'number'
        ? [{ family, address: local, prefix: prefixlen }]
        : [];
    });
    return [{ name: entry.ifname, hwaddr: typeof entry.address === 'string' ? entry.address : '', addresses }];
  });
}
