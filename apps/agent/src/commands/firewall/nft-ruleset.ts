import type { FirewallRule, FirewallRuleset } from '@corral/protocol';

/*
 * The node firewall as one nftables table of Corral's own, `inet corral`, so it replaces nothing
 * else on the host (PVE's own firewall, Docker's tables) and is removed as one piece. The file
 * first creates and deletes the table, then defines it: `nft -f` runs it as one transaction, so
 * the host is never without its rules between the old ruleset and the new one.
 */

export const TABLE = 'inet corral';

const VERDICTS = { ACCEPT: 'accept', DROP: 'drop', REJECT: 'reject' } as const;
/** nft's spelling of syslog's levels. */
const LOG_LEVELS: Readonly<Record<string, string>> = { warning: 'warn' };
/** The protocols that have ports, by number too, as nft names them. */
const PORT_PROTOCOLS: Readonly<Record<string, string>> = {
  tcp: 'tcp',
  udp: 'udp',
  udplite: 'udplite',
  sctp: 'sctp',
  dccp: 'dccp',
  '6': 'tcp',
  '17': 'udp',
  '33': 'dccp',
  '132': 'sctp',
  '136': 'udplite',
};
const ICMP6 = new Set(['icmpv6', 'ipv6-icmp', '58']);
/** Without neighbour discovery no IPv6 packet reaches its next hop, whatever the rules allow. */
const NEIGHBOUR_DISCOVERY = 'icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept';

export function renderRuleset(ruleset: FirewallRuleset): string {
  const aliases = new Map(ruleset.aliases.map((alias) => [alias.name.toLowerCase(), alias.cidr]));
  const chain = (name: 'input' | 'output', type: 'in' | 'out', policy: FirewallRuleset['policyIn']) => {
    const rules = ruleset.rules.flatMap((rule, position) => (rule.type === type ? renderRule(rule, position, aliases) : []));
    return [
      `\tchain ${name} {`,
      `\t\ttype filter hook ${name} priority filter; policy ${policy === 'ACCEPT' ? 'accept' : 'drop'};`,
      "\t\t# Replies, and so the agent's own connection to the control plane, pass whatever the rules say.",
      '\t\tct state established,related accept',
      `\t\t${type === 'in' ? 'iif' : 'oif'} "lo" accept`,
      `\t\t${NEIGHBOUR_DISCOVERY}`,
      ...rules.map((line) => `\t\t${line}`),
      ...(policy === 'REJECT' ? ['\t\t# policy REJECT', '\t\treject'] : []),
      '\t}',
    ];
  };
  return [
    '#!/usr/sbin/nft -f',
    "# The node firewall, written by the Corral agent from the control plane's rules: edit those, not this file.",
    `# ${ruleset.enabled ? 'Enabled: the agent loads this table.' : 'Disabled: the agent does not load this table and removes it from the kernel.'}`,
    `table ${TABLE}`,
    `delete table ${TABLE}`,
    '',
    `table ${TABLE} {`,
    ...chain('input', 'in', ruleset.policyIn),
    '',
    ...chain('output', 'out', ruleset.policyOut),
    '}',
    '',
  ].join('\n');
}

/** What removes the table, whether or not it is loaded (the same create-then-delete as above). */
export const REMOVE_TABLE = `table ${TABLE}\ndelete table ${TABLE}\n`;

/**
 * One rule as nft lines: its comment, then one line per address family its addresses need, since
 * `ip saddr` matches only IPv4 and `ip6 saddr` only IPv6. Disabled rules are not rendered.
 */
function renderRule(rule: FirewallRule, position: number, aliases: ReadonlyMap<string, string>): string[] {
  if (!rule.enabled) return [];
  const comment = `# rule ${position}${rule.comment === undefined ? '' : `: ${rule.comment}`}`;
  const source = rule.source?.map((address) => aliases.get(address.toLowerCase()) ?? address);
  const dest = rule.dest?.map((address) => aliases.get(address.toLowerCase()) ?? address);
  const matches = [
    ...(rule.iface === undefined ? [] : [`${rule.type === 'in' ? 'iifname' : 'oifname'} "${rule.iface}"`]),
    ...protocolMatches(rule),
    ...(rule.log === undefined || rule.log === 'nolog'
      ? []
      : [`log prefix "corral ${rule.type} ${position} ${rule.action}: " level ${LOG_LEVELS[rule.log] ?? rule.log}`]),
    VERDICTS[rule.action],
  ];
  if (source === undefined && dest === undefined) return [comment, matches.join(' ')];
  const lines = (['ip', 'ip6'] as const).flatMap((family) => {
    const inFamily = (address: string) => address.includes(':') === (family === 'ip6');
    const from = source?.filter(inFamily);
    const to = dest?.filter(inFamily);
    if (from?.length === 0 || to?.length === 0) return [];
    const addresses = [
      ...(from === undefined ? [] : [`${family} saddr ${set(from)}`]),
      ...(to === undefined ? [] : [`${family} daddr ${set(to)}`]),
    ];
    return [[...addresses, ...matches].join(' ')];
  });
  return [comment, ...(lines.length > 0 ? lines : ['# (matches nothing: its source and destination have no address family in common)'])];
}

function protocolMatches(rule: FirewallRule): string[] {
  if (rule.proto === undefined) return [];
  const ported = PORT_PROTOCOLS[rule.proto];
  if (ported !== undefined && (rule.sport !== undefined || rule.dport !== undefined)) {
    return [
      ...(rule.sport === undefined ? [] : [`${ported} sport ${set(rule.sport.map(port))}`]),
      ...(rule.dport === undefined ? [] : [`${ported} dport ${set(rule.dport.map(port))}`]),
    ];
  }
  if (rule.icmpType !== undefined) return [`${ICMP6.has(rule.proto) ? 'icmpv6' : 'icmp'} type ${rule.icmpType}`];
  return [`meta l4proto ${rule.proto}`];
}

/** PVE writes a port range `8000:8080`, nft `8000-8080`. */
function port(value: string): string {
  return value.replace(':', '-');
}

function set(values: readonly string[]): string {
  return `{ ${values.join(', ')} }`;
}
