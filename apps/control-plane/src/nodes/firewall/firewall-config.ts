import type { FirewallAlias, FirewallRule, FirewallRuleset } from '@corral/protocol';
import { createHash } from 'node:crypto';

/** A stored rule: the rule the agent renders, and the PVE macro it was written with (whose proto and ports it then carries). */
export type StoredRule = FirewallRule & { macro?: string };

/** A node's firewall as the control plane keeps it (node_firewalls). */
export interface FirewallConfig {
  readonly enabled: boolean;
  readonly policyIn: FirewallRuleset['policyIn'];
  readonly policyOut: FirewallRuleset['policyOut'];
  /** In order: a rule's index is its PVE `pos`. */
  readonly rules: readonly StoredRule[];
  /** Sorted by name, without regard to case (PVE's order). */
  readonly aliases: readonly FirewallAlias[];
}

/** A node whose firewall was never changed: PVE's defaults (off, in DROP, out ACCEPT), as the table's column defaults. */
export const DEFAULT_FIREWALL: FirewallConfig = { enabled: false, policyIn: 'DROP', policyOut: 'ACCEPT', rules: [], aliases: [] };

/** What the agent gets: the whole ruleset, macros already expanded. */
export function rulesetOf(config: FirewallConfig): FirewallRuleset {
  return {
    enabled: config.enabled,
    policyIn: config.policyIn,
    policyOut: config.policyOut,
    aliases: [...config.aliases],
    rules: config.rules.map(({ macro: _macro, ...rule }) => rule),
  };
}

/*
 * PVE's concurrent-edit check: every GET carries a `digest` (a SHA-1) of the part of the
 * configuration it shows, as PVE digests its rule list, alias list and options apart; a change
 * that sends one refuses to work on anything else.
 */

export const rulesDigest = (config: FirewallConfig): string => digest(config.rules);
export const aliasesDigest = (config: FirewallConfig): string => digest(config.aliases);
export const optionsDigest = (config: FirewallConfig): string =>
  digest({ enabled: config.enabled, policyIn: config.policyIn, policyOut: config.policyOut });

function digest(value: unknown): string {
  // Keys sorted: jsonb hands objects back in its own key order.
  const canonical = JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
  return createHash('sha1').update(canonical).digest('hex');
}
