import { badParam } from '../../errors/resource-errors.js';

/** A PVE macro Corral expands: one protocol and its ports, or an ICMP type. */
export interface Macro {
  readonly name: string;
  readonly proto: string;
  readonly dport?: readonly string[];
  readonly icmpType?: string;
}

/** PVE's macros of a single protocol, by PVE's name (their well-known ports). */
const MACROS: readonly Macro[] = [
  { name: 'FTP', proto: 'tcp', dport: ['21'] },
  { name: 'SSH', proto: 'tcp', dport: ['22'] },
  { name: 'Telnet', proto: 'tcp', dport: ['23'] },
  { name: 'SMTP', proto: 'tcp', dport: ['25'] },
  { name: 'HTTP', proto: 'tcp', dport: ['80'] },
  { name: 'POP3', proto: 'tcp', dport: ['110'] },
  { name: 'NTP', proto: 'udp', dport: ['123'] },
  { name: 'IMAP', proto: 'tcp', dport: ['143'] },
  { name: 'LDAP', proto: 'tcp', dport: ['389'] },
  { name: 'HTTPS', proto: 'tcp', dport: ['443'] },
  { name: 'SMTPS', proto: 'tcp', dport: ['465'] },
  { name: 'Submission', proto: 'tcp', dport: ['587'] },
  { name: 'LDAPS', proto: 'tcp', dport: ['636'] },
  { name: 'Rsync', proto: 'tcp', dport: ['873'] },
  { name: 'IMAPS', proto: 'tcp', dport: ['993'] },
  { name: 'POP3S', proto: 'tcp', dport: ['995'] },
  { name: 'MySQL', proto: 'tcp', dport: ['3306'] },
  { name: 'RDP', proto: 'tcp', dport: ['3389'] },
  { name: 'PostgreSQL', proto: 'tcp', dport: ['5432'] },
  { name: 'VNC', proto: 'tcp', dport: ['5900:5999'] },
  { name: 'Git', proto: 'tcp', dport: ['9418'] },
  { name: 'Web', proto: 'tcp', dport: ['80', '443'] },
  { name: 'Ping', proto: 'icmp', icmpType: 'echo-request' },
];

/** PVE macros that need more than one protocol (DNS is udp and tcp 53): one rule here holds one protocol. */
const MULTI_PROTOCOL = ['BitTorrent', 'DNS', 'SMB', 'SNMP', 'Syslog', 'Trcrt'];

const byName = new Map(MACROS.map((macro) => [macro.name.toLowerCase(), macro]));

/** The macro PVE knows by this name (without regard to case, as PVE), or a 400 naming `macro`. */
export function findMacro(name: string): Macro {
  const macro = byName.get(name.toLowerCase());
  if (macro) return macro;
  const multi = MULTI_PROTOCOL.find((known) => known.toLowerCase() === name.toLowerCase());
  if (multi) throw badParam('macro', `macro '${multi}' needs more than one protocol: write one rule per protocol with proto and dport`);
  throw badParam('macro', `unknown macro '${name}' (known: ${MACROS.map((known) => known.name).join(', ')})`);
}
