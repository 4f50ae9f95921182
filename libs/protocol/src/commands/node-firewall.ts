import { z } from 'zod';
import { InterfaceName } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/*
 * The node firewall as the control plane stores it (`/nodes/{node}/firewall/rules` and `aliases`),
 * sent whole to the agent, which renders it into one nftables table of its own. Rule fields follow
 * PVE's; the control plane expands PVE macros (`SSH`, `HTTP`, ...) into `proto` and ports before
 * sending, so the agent renders only these primitives.
 */

const ACTIONS = ['ACCEPT', 'DROP', 'REJECT'] as const;
const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'udplite', 'sctp', 'dccp', '6', '17', '33', '132', '136']);
const ICMP_PROTOCOLS = new Set(['icmp', 'icmpv6', 'ipv6-icmp', '1', '58']);

const Comment = z
  .string()
  .max(1024)
  .regex(/^[^\r\n]*$/, 'must be one line');

/** An alias name, as PVE's: a letter, then letters, digits, `-` or `_`. */
const AliasName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{1,63}$/, 'must be an alias name (a letter, then 1 to 63 letters, digits, - or _)');

/** A source or destination: an address, a network, or the name of an alias of the same ruleset. */
const Address = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6(), AliasName], {
  error: 'must be an IP address, a CIDR or an alias name',
});

/** A port, a range `from:to` as PVE writes it, or a service name nft resolves (`ssh`). */
const Port = z
  .string()
  .regex(/^(?:[0-9]{1,5}(?::[0-9]{1,5})?|[a-z][a-z0-9-]{0,31})$/, 'must be a port, a range such as 8000:8080, or a service name')
  .refine((value) => {
    if (!/^[0-9]/.test(value)) return true;
    const [from = 0, to = from] = value.split(':').map(Number);
    return from >= 1 && to <= 65535 && from <= to;
  }, 'must be ports between 1 and 65535, the range ascending');

/** An IP protocol by name (`tcp`) or number (0-255). */
const Protocol = z
  .string()
  .regex(/^(?:[a-z][a-z0-9-]{0,31}|[0-9]{1,3})$/, 'must be a protocol name or number')
  .refine((value) => !/^[0-9]/.test(value) || Number(value) <= 255, 'must be a protocol number up to 255');

export const FirewallAlias = z.strictObject({
  name: AliasName,
  cidr: z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { error: 'must be an IP address or a CIDR' }),
  comment: Comment.optional(),
});
export type FirewallAlias = z.infer<typeof FirewallAlias>;

/** One rule; its place in `rules` is its position (PVE's `pos`). */
export const FirewallRule = z
  .strictObject({
    /** Traffic to the host (`in`) or from it (`out`). */
    type: z.enum(['in', 'out']),
    action: z.enum(ACTIONS),
    /** PVE's `enable`: a disabled rule is kept but not rendered. */
    enabled: z.boolean(),
    iface: InterfaceName.optional(),
    source: z.array(Address).min(1).max(256).optional(),
    dest: z.array(Address).min(1).max(256).optional(),
    proto: Protocol.optional(),
    dport: z.array(Port).min(1).max(256).optional(),
    sport: z.array(Port).min(1).max(256).optional(),
    icmpType: z
      .string()
      .regex(/^(?:[a-z][a-z-]{0,63}|[0-9]{1,3})$/, 'must be an ICMP type name or number')
      .optional(),
    log: z.enum(['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug', 'nolog']).optional(),
    comment: Comment.optional(),
  })
  .refine(
    (rule) => (rule.dport === undefined && rule.sport === undefined) || (rule.proto !== undefined && PORT_PROTOCOLS.has(rule.proto)),
    {
      message: 'ports need a proto that has ports (tcp, udp, udplite, sctp, dccp)',
      path: ['proto'],
    },
  )
  .refine((rule) => rule.icmpType === undefined || (rule.proto !== undefined && ICMP_PROTOCOLS.has(rule.proto)), {
    message: 'an ICMP type needs proto icmp or icmpv6',
    path: ['icmpType'],
  });
export type FirewallRule = z.infer<typeof FirewallRule>;

/**
 * The node's whole firewall. Traffic of established connections, and so the agent's own connection
 * to the control plane, is always let through, whatever the rules and policies say.
 */
export const FirewallRuleset = z
  .strictObject({
    /** When false the agent removes its table, so the host filters nothing of its own. */
    enabled: z.boolean(),
    /** What happens to traffic no rule matched. */
    policyIn: z.enum(ACTIONS),
    policyOut: z.enum(ACTIONS),
    aliases: z.array(FirewallAlias).max(1024),
    rules: z.array(FirewallRule).max(4096),
  })
  .superRefine((ruleset, context) => {
    // PVE compares alias names without regard to case.
    const known = new Set<string>();
    ruleset.aliases.forEach((alias, index) => {
      const key = alias.name.toLowerCase();
      if (known.has(key))
        context.addIssue({ code: 'custom', message: `alias '${alias.name}' is defined twice`, path: ['aliases', index, 'name'] });
      known.add(key);
    });
    ruleset.rules.forEach((rule, index) => {
      for (const field of ['source', 'dest'] as const) {
        rule[field]?.forEach((address, position) => {
          if (AliasName.safeParse(address).success && !known.has(address.toLowerCase())) {
            context.addIssue({ code: 'custom', message: `unknown alias '${address}'`, path: ['rules', index, field, position] });
          }
        });
      }
    });
  });
export type FirewallRuleset = z.infer<typeof FirewallRuleset>;

export const nodeFirewallApply = {
  description:
    'Render the ruleset into nftables, check it with `nft -c` where nft exists, and load it when the firewall is enabled (remove it when not). ' +
    "Fails with nft's message when the check fails, and as unavailable when the firewall is enabled but nft is missing.",
  params: FirewallRuleset,
  result: z.object({
    /** Whether `nft -c` accepted the rendered ruleset (false where nft is missing). */
    checked: z.boolean(),
    /** Whether the ruleset is now loaded in the kernel. */
    applied: z.boolean(),
  }),
} satisfies CommandDefinition;
