import { FirewallRuleset } from '@corral/protocol';
import { renderRuleset } from './nft-ruleset.js';

// libs/protocol/fixtures/commands/node.firewall.apply.request.json
const OPERATORS = FirewallRuleset.parse({
  enabled: true,
  policyIn: 'DROP',
  policyOut: 'ACCEPT',
  aliases: [{ name: 'admin-net', cidr: '198.51.100.0/24', comment: 'operators' }],
  rules: [
    {
      type: 'in',
      action: 'ACCEPT',
      enabled: true,
      source: ['admin-net'],
      proto: 'tcp',
      dport: ['22', '8006'],
      comment: 'ssh and api from operators',
    },
    { type: 'in', action: 'ACCEPT', enabled: true, proto: 'icmp', icmpType: 'echo-request' },
    { type: 'in', action: 'DROP', enabled: false, iface: 'vmbr0', source: ['203.0.113.0/24'], log: 'info' },
  ],
});

const MIXED = FirewallRuleset.parse({
  enabled: false,
  policyIn: 'REJECT',
  policyOut: 'DROP',
  aliases: [
    { name: 'Monitoring', cidr: '2001:db8:42::/48' },
    { name: 'backup_host', cidr: '192.0.2.50' },
  ],
  rules: [
    {
      type: 'in',
      action: 'ACCEPT',
      enabled: true,
      source: ['monitoring', '198.51.100.7'],
      proto: 'udp',
      dport: ['161', '10000:10010'],
      log: 'warning',
      comment: 'snmp "quoted" # not a comment',
    },
    { type: 'out', action: 'ACCEPT', enabled: true, dest: ['backup_host'], proto: '6', dport: ['ssh'], iface: 'vmbr0' },
    { type: 'out', action: 'REJECT', enabled: true, source: ['192.0.2.0/24'], dest: ['2001:db8::1'] },
    { type: 'in', action: 'DROP', enabled: true, proto: 'ipv6-icmp', icmpType: 'echo-request' },
    { type: 'in', action: 'ACCEPT', enabled: true, proto: '47' },
    { type: 'out', action: 'DROP', enabled: true, proto: 'tcp', sport: ['1024:65535'], log: 'nolog' },
  ],
});

const HEAD = `#!/usr/sbin/nft -f
# The node firewall, written by the Corral agent from the control plane's rules: edit those, not this file.
`;
const ALWAYS = (hook: 'iif' | 'oif') => `\t\t# Replies, and so the agent's own connection to the control plane, pass whatever the rules say.
\t\tct state established,related accept
\t\t${hook} "lo" accept
\t\ticmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept
`;

describe('the nftables rendering of a node firewall', () => {
  it('renders aliases inline, skips disabled rules and lets established and loopback traffic through first', () => {
    expect(renderRuleset(OPERATORS)).toBe(
      `${HEAD}# Enabled: the agent loads this table.
table inet corral
delete table inet corral

table inet corral {
\tchain input {
\t\ttype filter hook input priority filter; policy drop;
${ALWAYS('iif')}\t\t# rule 0: ssh and api from operators
\t\tip saddr { 198.51.100.0/24 } tcp dport { 22, 8006 } accept
\t\t# rule 1
\t\ticmp type echo-request accept
\t}

\tchain output {
\t\ttype filter hook output priority filter; policy accept;
${ALWAYS('oif')}\t}
}
`,
    );
  });

  it('splits rules by address family, maps ranges, protocol numbers and log levels to nft, and ends a REJECT chain with reject', () => {
    expect(renderRuleset(MIXED)).toBe(
      `${HEAD}# Disabled: the agent does not load this table and removes it from the kernel.
table inet corral
delete table inet corral

table inet corral {
\tchain input {
\t\ttype filter hook input priority filter; policy drop;
${ALWAYS('iif')}\t\t# rule 0: snmp "quoted" # not a comment
\t\tip saddr { 198.51.100.7 } udp dport { 161, 10000-10010 } log prefix "corral in 0 ACCEPT: " level warn accept
\t\tip6 saddr { 2001:db8:42::/48 } udp dport { 161, 10000-10010 } log prefix "corral in 0 ACCEPT: " level warn accept
\t\t# rule 3
\t\ticmpv6 type echo-request drop
\t\t# rule 4
\t\tmeta l4proto 47 accept
\t\t# policy REJECT
\t\treject
\t}

\tchain output {
\t\ttype filter hook output priority filter; policy drop;
${ALWAYS('oif')}\t\t# rule 1
\t\tip daddr { 192.0.2.50 } oifname "vmbr0" tcp dport { ssh } accept
\t\t# rule 2
\t\t# (matches nothing: its source and destination have no address family in common)
\t\t# rule 5
\t\ttcp sport { 1024-65535 } drop
\t}
}
`,
    );
  });
});
