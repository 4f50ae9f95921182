import type { NewNetworkInterface } from '@corral/protocol';

/**
 * The stanzas of a new bridge, bond or VLAN as PVE writes them (ifupdown2 option names, a tab
 * before each option, the comment after the options), `inet6` only when it has an address.
 */
export function renderNewInterface(iface: NewNetworkInterface): string {
  const inet = [
    ...(iface.cidr === undefined ? [] : [`address ${iface.cidr}`]),
    ...(iface.gateway === undefined ? [] : [`gateway ${iface.gateway}`]),
    ...kindOptions(iface),
    ...(iface.mtu === undefined ? [] : [`mtu ${iface.mtu}`]),
  ];
  const lines = [
    ...(iface.autostart === true ? [`auto ${iface.iface}`] : []),
    `iface ${iface.iface} inet ${iface.cidr === undefined ? 'manual' : 'static'}`,
    ...inet.map((option) => `\t${option}`),
    ...(iface.comments === undefined ? [] : [`#${iface.comments}`]),
  ];
  if (iface.cidr6 !== undefined) {
    lines.push(
      '',
      `iface ${iface.iface} inet6 static`,
      `\taddress ${iface.cidr6}`,
      ...(iface.gateway6 === undefined ? [] : [`\tgateway ${iface.gateway6}`]),
    );
  }
  return `${lines.join('\n')}\n`;
}

function kindOptions(iface: NewNetworkInterface): string[] {
  switch (iface.type) {
    case 'bridge':
      return [
        `bridge-ports ${iface.bridgePorts?.length ? iface.bridgePorts.join(' ') : 'none'}`,
        // PVE's bridge defaults: no spanning tree, no forward delay, so guests get link at once.
        'bridge-stp off',
        'bridge-fd 0',
        ...(iface.bridgeVlanAware === true ? ['bridge-vlan-aware yes', `bridge-vids ${(iface.bridgeVids ?? ['2-4094']).join(' ')}`] : []),
      ];
    case 'bond':
      return [
        `bond-slaves ${iface.slaves.join(' ')}`,
        // Link monitoring every 100 ms, as PVE writes it: without it a bond never notices a dead link.
        'bond-miimon 100',
        `bond-mode ${iface.bondMode}`,
        ...(iface.bondPrimary === undefined ? [] : [`bond-primary ${iface.bondPrimary}`]),
        ...(iface.bondXmitHashPolicy === undefined ? [] : [`bond-xmit-hash-policy ${iface.bondXmitHashPolicy}`]),
      ];
    case 'vlan':
      return [
        ...(iface.vlanRawDevice === undefined ? [] : [`vlan-raw-device ${iface.vlanRawDevice}`]),
        ...(iface.vlanId === undefined ? [] : [`vlan-id ${iface.vlanId}`]),
      ];
  }
}
