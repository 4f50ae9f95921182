import { FirewallAlias, FirewallRule, FirewallRuleset } from '@corral/protocol';
import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../../http/params.js';
import { AUDIT_NODE, MODIFY_NODE, NODE } from '../nodes.endpoints.js';

/*
 * The node firewall on PVE's paths and parameter names. Each field is checked with the protocol's
 * own schema for it, so the agent never gets a value it refuses; what spans fields (ports need a
 * port protocol, an alias must exist) is checked with the whole ruleset by the service.
 */

const RULE = FirewallRule.shape;
const ALIAS = FirewallAlias.shape;
const RULESET = FirewallRuleset.shape;

/** PVE's comma-separated lists (`192.0.2.0/24,office`, `22,80:90`); repeated keys or a JSON array work too. */
function commaList<T extends z.ZodType>(list: T, description: string) {
  return z
    .preprocess((value) => (typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value), list)
    .meta({ description });
}

/** PVE's `pve-configid-list`: names separated by commas, spaces or semicolons. */
function deleteList<const K extends readonly [string, ...string[]]>(keys: K) {
  return z
    .preprocess((value) => (typeof value === 'string' ? value.split(/[\s,;]+/).filter((key) => key !== '') : value), z.array(z.enum(keys)))
    .meta({ description: `Settings to clear: ${keys.join(', ')}.` })
    .optional();
}

const DIGEST = {
  digest: stringParam({
    description:
      "The `digest` of the read this change is based on: refused with 409 when that part of the configuration changed since (PVE's concurrent-edit check).",
    maxLength: 64,
  }).optional(),
};

/** What a rule's `delete` may clear; `type`, `action` and `enable` are always set. */
export const DELETABLE_RULE_FIELDS = [
  'macro',
  'iface',
  'source',
  'dest',
  'proto',
  'dport',
  'sport',
  'icmp-type',
  'log',
  'comment',
] as const;
export const DELETABLE_OPTIONS = ['enable', 'policy_in', 'policy_out'] as const;

const RULE_FIELDS = {
  type: RULE.type.meta({ description: 'Traffic to the host (`in`) or from it (`out`).' }),
  action: RULE.action.meta({ description: 'What a matching packet meets.' }),
  enable: integerParam({
    description: 'Whether the rule is in force: 0 keeps it without applying it (the default on create, as PVE).',
    min: 0,
  }).optional(),
  iface: RULE.iface.meta({ description: 'Only packets through this interface.' }),
  source: commaList(RULE.source.unwrap(), 'Source addresses, networks or alias names, comma-separated.').optional(),
  dest: commaList(RULE.dest.unwrap(), 'Destination addresses, networks or alias names, comma-separated.').optional(),
  proto: RULE.proto.meta({ description: 'IP protocol, by name (`tcp`) or number.' }),
  dport: commaList(
    RULE.dport.unwrap(),
    'Destination ports, ranges `from:to` or service names, comma-separated (`22,8000:8100`); needs a proto with ports.',
  ).optional(),
  sport: commaList(RULE.sport.unwrap(), 'Source ports, as `dport`.').optional(),
  'icmp-type': RULE.icmpType.meta({ description: 'ICMP type (`echo-request`, or a number); needs proto icmp or icmpv6.' }),
  log: RULE.log.meta({ description: 'Log level for packets that match.' }),
  comment: RULE.comment.meta({ description: 'A one-line comment.' }),
  macro: stringParam({
    description:
      'A PVE macro of one protocol (`SSH`, `HTTP`, `HTTPS`, `Ping`, ...): sets proto and dport (or the ICMP type), so neither may be given with it.',
    maxLength: 128,
  }).optional(),
};
const RuleFields = z.object(RULE_FIELDS);
/** A rule's fields as the API takes them (PVE's names). */
export type RuleParams = Partial<z.output<typeof RuleFields>>;

const POS = { pos: integerParam({ description: "The rule's position, from 0 (the first rule to match decides).", min: 0 }) };
const ALIAS_NAME = { name: ALIAS.name.meta({ description: 'The alias (compared without regard to case).' }) };

export const RuleEntry = z.object({
  pos: z.number().int(),
  type: z.enum(['in', 'out']),
  action: z.string(),
  enable: z.union([z.literal(0), z.literal(1)]),
  iface: z.string().optional(),
  source: z.string().optional(),
  dest: z.string().optional(),
  proto: z.string().optional().meta({ description: 'Absent when a macro sets it.' }),
  dport: z.string().optional().meta({ description: 'Absent when a macro sets it.' }),
  sport: z.string().optional(),
  'icmp-type': z.string().optional(),
  log: z.string().optional(),
  comment: z.string().optional(),
  macro: z.string().optional(),
  digest: z.string().meta({ description: 'SHA-1 of the rule list, for `digest` in a change.' }),
});
export type RuleEntry = z.infer<typeof RuleEntry>;

export const AliasEntry = z.object({
  name: z.string(),
  cidr: z.string(),
  comment: z.string().optional(),
  digest: z.string().meta({ description: 'SHA-1 of the alias list, for `digest` in a change.' }),
});
export type AliasEntry = z.infer<typeof AliasEntry>;

export const OptionsEntry = z.object({
  enable: z.union([z.literal(0), z.literal(1)]).meta({ description: 'Whether the host firewall is loaded (default 0).' }),
  policy_in: z.enum(['ACCEPT', 'DROP', 'REJECT']).meta({ description: 'For incoming traffic no rule matched (default DROP).' }),
  policy_out: z.enum(['ACCEPT', 'DROP', 'REJECT']).meta({ description: 'For outgoing traffic no rule matched (default ACCEPT).' }),
  digest: z.string().meta({ description: 'SHA-1 of the options, for `digest` in a change.' }),
});
export type OptionsEntry = z.infer<typeof OptionsEntry>;

const APPLIED =
  "Stored by the control plane; when the node's agent is connected, the whole ruleset is applied by it before the change is stored (a ruleset `nft -c` refuses is not stored), otherwise it is applied when the agent comes back.";

export const FIREWALL_ENDPOINTS = {
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}/firewall',
    summary: "The node firewall's sub-resources",
    parameters: z.object(NODE),
    returns: z.array(z.object({ name: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  rules: endpoint({
    method: 'GET',
    path: '/nodes/{node}/firewall/rules',
    summary: "The node's firewall rules, in order",
    parameters: z.object(NODE),
    returns: z.array(RuleEntry),
    permission: AUDIT_NODE,
  }),
  createRule: endpoint({
    method: 'POST',
    path: '/nodes/{node}/firewall/rules',
    summary: 'Add a rule, first unless `pos` says where',
    description: APPLIED,
    parameters: z.object({
      ...NODE,
      ...RULE_FIELDS,
      pos: integerParam({ description: 'Insert at this position (default 0, the top, as PVE); past the end appends.', min: 0 }).optional(),
      ...DIGEST,
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  rule: endpoint({
    method: 'GET',
    path: '/nodes/{node}/firewall/rules/{pos}',
    summary: 'One rule',
    parameters: z.object({ ...NODE, ...POS }),
    returns: RuleEntry,
    permission: AUDIT_NODE,
  }),
  updateRule: endpoint({
    method: 'PUT',
    path: '/nodes/{node}/firewall/rules/{pos}',
    summary: 'Change a rule, or move it with `moveto`',
    description: APPLIED,
    parameters: z.object({
      ...NODE,
      ...POS,
      ...RuleFields.partial().shape,
      moveto: integerParam({
        description: 'Move the rule before the one now at this position (past the end: last); the other fields are then ignored (PVE).',
        min: 0,
      }).optional(),
      delete: deleteList(DELETABLE_RULE_FIELDS),
      ...DIGEST,
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  deleteRule: endpoint({
    method: 'DELETE',
    path: '/nodes/{node}/firewall/rules/{pos}',
    summary: 'Remove a rule; the ones after it move up',
    description: APPLIED,
    parameters: z.object({ ...NODE, ...POS, ...DIGEST }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  aliases: endpoint({
    method: 'GET',
    path: '/nodes/{node}/firewall/aliases',
    summary: "The node's firewall aliases: names for addresses and networks that rules use in `source` and `dest`",
    parameters: z.object(NODE),
    returns: z.array(AliasEntry),
    permission: AUDIT_NODE,
  }),
  createAlias: endpoint({
    method: 'POST',
    path: '/nodes/{node}/firewall/aliases',
    summary: 'Add an alias',
    description: APPLIED,
    parameters: z.object({
      ...NODE,
      ...ALIAS_NAME,
      cidr: ALIAS.cidr.meta({ description: 'An address or a network.' }),
      comment: ALIAS.comment,
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  alias: endpoint({
    method: 'GET',
    path: '/nodes/{node}/firewall/aliases/{name}',
    summary: 'One alias',
    parameters: z.object({ ...NODE, ...ALIAS_NAME }),
    returns: AliasEntry,
    permission: AUDIT_NODE,
  }),
  updateAlias: endpoint({
    method: 'PUT',
    path: '/nodes/{node}/firewall/aliases/{name}',
    summary: 'Change an alias (PVE: `cidr` is required, `comment` replaced); `rename` also renames it in the rules that use it',
    description: APPLIED,
    parameters: z.object({
      ...NODE,
      ...ALIAS_NAME,
      cidr: ALIAS.cidr.meta({ description: 'An address or a network.' }),
      comment: ALIAS.comment,
      rename: ALIAS.name.meta({ description: 'The new name.' }).optional(),
      ...DIGEST,
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  deleteAlias: endpoint({
    method: 'DELETE',
    path: '/nodes/{node}/firewall/aliases/{name}',
    summary: 'Remove an alias that no rule uses',
    description: APPLIED,
    parameters: z.object({ ...NODE, ...ALIAS_NAME, ...DIGEST }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
  options: endpoint({
    method: 'GET',
    path: '/nodes/{node}/firewall/options',
    summary: "The node firewall's options",
    parameters: z.object(NODE),
    returns: OptionsEntry,
    permission: AUDIT_NODE,
  }),
  setOptions: endpoint({
    method: 'PUT',
    path: '/nodes/{node}/firewall/options',
    summary: "Change the node firewall's options: `enable` loads the ruleset on the host, or removes it",
    description: APPLIED,
    parameters: z.object({
      ...NODE,
      enable: booleanParam({ description: 'Load the host firewall (default 0).' }).optional(),
      policy_in: RULESET.policyIn.meta({ description: 'For incoming traffic no rule matched (default DROP).' }).optional(),
      policy_out: RULESET.policyOut.meta({ description: 'For outgoing traffic no rule matched (default ACCEPT).' }).optional(),
      delete: deleteList(DELETABLE_OPTIONS),
      ...DIGEST,
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
};
