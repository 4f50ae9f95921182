import { badParam, notFound } from '../../errors/resource-errors.js';
import { type FirewallConfig, rulesDigest, type StoredRule } from './firewall-config.js';
import { checkDigest } from '../../http/entry-changes.js';
import type { DELETABLE_RULE_FIELDS, RuleEntry, RuleParams } from './firewall.endpoints.js';
import { findMacro } from './firewall-macros.js';

/** A new rule's fields: `type` and `action` are required. */
type NewRuleParams = RuleParams & Required<Pick<RuleParams, 'type' | 'action'>>;

/** The protocol's name of each field `delete` may clear. */
const FIELD_OF = {
  macro: 'macro',
  iface: 'iface',
  source: 'source',
  dest: 'dest',
  proto: 'proto',
  dport: 'dport',
  sport: 'sport',
  'icmp-type': 'icmpType',
  log: 'log',
  comment: 'comment',
} as const satisfies Record<(typeof DELETABLE_RULE_FIELDS)[number], keyof StoredRule>;

/** The fields a macro sets. */
const MACRO_FIELDS = [
  ['proto', 'proto'],
  ['dport', 'dport'],
  ['icmpType', 'icmp-type'],
] as const;

export function ruleEntries(config: FirewallConfig): RuleEntry[] {
  const digest = rulesDigest(config);
  return config.rules.map((rule, pos) => entryOf(rule, pos, digest));
}

export function ruleEntry(config: FirewallConfig, pos: number): RuleEntry {
  return entryOf(ruleAt(config, pos), pos, rulesDigest(config));
}

/** PVE: a new rule goes first unless `pos` says where, and is disabled unless `enable` says otherwise. */
export function insertRule(config: FirewallConfig, params: NewRuleParams & { pos?: number; digest?: string }): FirewallConfig {
  checkDigest(rulesDigest(config), params.digest);
  const rule = expanded({ type: params.type, action: params.action, enabled: false, ...changesOf(params) });
  const rules = [...config.rules];
  rules.splice(Math.min(params.pos ?? 0, rules.length), 0, rule);
  return { ...config, rules };
}

/** PVE's update: `moveto` moves the rule (and ignores the other fields), otherwise the fields given are set and those in `delete` cleared. */
export function updateRule(
  config: FirewallConfig,
  pos: number,
  params: RuleParams & { moveto?: number; delete?: readonly (typeof DELETABLE_RULE_FIELDS)[number][]; digest?: string },
): FirewallConfig {
  checkDigest(rulesDigest(config), params.digest);
  const current = ruleAt(config, pos);
  if (params.moveto !== undefined && params.moveto !== pos) return { ...config, rules: moved(config.rules, pos, params.moveto) };
  const changes = changesOf(params);
  const fields: StoredRule = { ...written(current), ...changes };
  for (const name of params.delete ?? []) {
    const field = FIELD_OF[name];
    if (field in changes) throw badParam('delete', `cannot both set and delete '${name}'`);
    delete fields[field];
  }
  const rules = [...config.rules];
  rules[pos] = expanded(fields);
  return { ...config, rules };
}

export function deleteRule(config: FirewallConfig, pos: number, digest: string | undefined): FirewallConfig {
  checkDigest(rulesDigest(config), digest);
  ruleAt(config, pos);
  return { ...config, rules: config.rules.filter((_rule, index) => index !== pos) };
}

/**
 * PVE's move: the rule goes before the one that is at `to` now, so moving a rule down lands it at
 * `to - 1`; a `to` past the end makes it last. Clients (PVE's own drag and drop) count on this.
 */
function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const rest = list.filter((_item, index) => index !== from);
  const at = to >= list.length ? rest.length : to > from ? to - 1 : to;
  rest.splice(at, 0, list[from] as T);
  return rest;
}

function ruleAt(config: FirewallConfig, pos: number): StoredRule {
  const rule = config.rules[pos];
  if (!rule) throw notFound(`rule at position ${pos}`);
  return rule;
}

/** The fields given, in the protocol's names. */
function changesOf(params: RuleParams): Partial<StoredRule> {
  const changes: Partial<StoredRule> = {
    type: params.type,
    action: params.action,
    enabled: params.enable === undefined ? undefined : params.enable > 0,
    iface: params.iface,
    source: params.source,
    dest: params.dest,
    proto: params.proto,
    dport: params.dport,
    sport: params.sport,
    icmpType: params['icmp-type'],
    log: params.log,
    comment: params.comment,
    macro: params.macro,
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<StoredRule>;
}

/** The rule as its author wrote it: a macro's rule without the proto and ports the macro set. */
function written(rule: StoredRule): StoredRule {
  if (rule.macro === undefined) return rule;
  const { proto: _proto, dport: _dport, icmpType: _icmpType, ...own } = rule;
  return own;
}

/** The rule as stored and sent: its macro expanded into proto and ports (or ICMP type). */
function expanded(rule: StoredRule): StoredRule {
  if (rule.macro === undefined) return rule;
  const macro = findMacro(rule.macro);
  for (const [field, param] of MACRO_FIELDS) {
    if (rule[field] !== undefined)
      throw badParam(param, `cannot be combined with macro '${macro.name}', which sets it (delete the macro to set ${param})`);
  }
  return {
    ...rule,
    macro: macro.name,
    proto: macro.proto,
    ...(macro.dport ? { dport: [...macro.dport] } : {}),
    ...(macro.icmpType ? { icmpType: macro.icmpType } : {}),
  };
}

/** PVE's view of a rule: comma lists, `enable` 0/1, and a macro's rule without what the macro sets. */
function entryOf(rule: StoredRule, pos: number, digest: string): RuleEntry {
  const own = written(rule);
  return {
    pos,
    type: own.type,
    action: own.action,
    enable: own.enabled ? 1 : 0,
    iface: own.iface,
    source: own.source?.join(','),
    dest: own.dest?.join(','),
    proto: own.proto,
    dport: own.dport?.join(','),
    sport: own.sport?.join(','),
    'icmp-type': own.icmpType,
    log: own.log,
    comment: own.comment,
    macro: own.macro,
    digest,
  };
}
