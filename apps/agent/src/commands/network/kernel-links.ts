/** A network interface as the running kernel has it (`ip -j -d addr show`). */
export interface KernelLink {
  readonly name: string;
  /** Administratively up (IFF_UP), which is what PVE's `active` shows. */
  readonly up: boolean;
  /** The driver kind of a virtual interface (`bridge`, `bond`, `vlan`, `veth`, ...); absent for a NIC. */
  readonly kind?: string;
  /** A network card: an Ethernet link no virtual driver made. */
  readonly physical: boolean;
  readonly mtu?: number;
  /** The first global IPv4 and IPv6 addresses. */
  readonly cidr?: string;
  readonly cidr6?: string;
}

interface IpAddress {
  readonly family?: unknown;
  readonly local?: unknown;
  readonly prefixlen?: unknown;
  readonly scope?: unknown;
}

export function parseIpAddr(json: string): KernelLink[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((entry: Record<string, unknown>) => {
    if (typeof entry['ifname'] !== 'string') return [];
    const flags = Array.isArray(entry['flags']) ? entry['flags'] : [];
    const linkinfo = (entry['linkinfo'] ?? {}) as { info_kind?: unknown };
    const kind = typeof linkinfo.info_kind === 'string' ? linkinfo.info_kind : undefined;
    const addresses = (Array.isArray(entry['addr_info']) ? entry['addr_info'] : []) as IpAddress[];
    const global = (family: string) => {
      const found = addresses.find((address) => address.family === family && address.scope === 'global');
      return found === undefined ? undefined : `${String(found.local)}/${String(found.prefixlen)}`;
    };
    return [
      {
        name: entry['ifname'],
        up: flags.includes('UP'),
        kind,
        physical: kind === undefined && entry['link_type'] === 'ether',
        mtu: typeof entry['mtu'] === 'number' ? entry['mtu'] : undefined,
        cidr: global('inet'),
        cidr6: global('inet6'),
      },
    ];
  });
}
