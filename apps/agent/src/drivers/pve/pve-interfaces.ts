import type { ContainerInterface } from '@corral/protocol';

interface PveInterface {
  readonly name?: unknown;
  readonly hwaddr?: unknown;
  readonly 'ip-addresses'?: readonly { readonly 'ip-address'?: unknown; readonly 'ip-address-type'?: unknown; readonly prefix?: unknown }[];
}

/** PVE's `.../lxc/<vmid>/interfaces` (`pvesh ... --output-format json`) in the protocol's shape. */
export function pveInterfaces(json: string): ContainerInterface[] {
  const entries = JSON.parse(json) as unknown;
  if (!Array.isArray(entries)) throw new Error('pvesh did not answer a list of interfaces');
  return (entries as PveInterface[]).flatMap((entry) => {
    if (typeof entry.name !== 'string') return [];
    const addresses = (entry['ip-addresses'] ?? []).flatMap((ip): ContainerInterface['addresses'] => {
      const family = ip['ip-address-type'];
      const address = ip['ip-address'];
      return (family === 'inet' || family === 'inet6') && typeof address === 'string'
        ? [{ family, address, prefix: Number(ip.prefix) }]
        : [];
    });
    return [{ name: entry.name, hwaddr: typeof entry.hwaddr === 'string' ? entry.hwaddr : '', addresses }];
  });
}
