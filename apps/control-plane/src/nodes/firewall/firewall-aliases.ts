import type { FirewallAlias } from '@corral/protocol';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, notFound } from '../../errors/resource-errors.js';
import { aliasesDigest, type FirewallConfig, type StoredRule } from './firewall-config.js';
import { checkDigest } from '../../http/entry-changes.js';
import type { AliasEntry } from './firewall.endpoints.js';

/* Aliases are named without regard to case, as in PVE: `Office` and `office` are one alias. */

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function aliasEntries(config: FirewallConfig): AliasEntry[] {
  const digest = aliasesDigest(config);
  return config.aliases.map((alias) => ({ ...alias, digest }));
}

export function aliasEntry(config: FirewallConfig, name: string): AliasEntry {
  return { ...aliasNamed(config, name), digest: aliasesDigest(config) };
}

export function createAlias(config: FirewallConfig, alias: FirewallAlias): FirewallConfig {
  if (config.aliases.some((existing) => same(existing.name, alias.name))) throw alreadyExists(`alias '${alias.name}'`);
  return { ...config, aliases: sorted([...config.aliases, withoutEmptyComment(alias)]) };
}

/** PVE's update: `cidr` and `comment` replace the alias's; `rename` renames it, here also where rules use it, so they keep meaning the same network. */
export function updateAlias(
  config: FirewallConfig,
  params: { name: string; cidr: string; comment?: string; rename?: string; digest?: string },
): FirewallConfig {
  checkDigest(aliasesDigest(config), params.digest);
  const current = aliasNamed(config, params.name);
  const name = params.rename ?? current.name;
  if (!same(name, current.name) && config.aliases.some((existing) => same(existing.name, name))) throw alreadyExists(`alias '${name}'`);
  const others = config.aliases.filter((alias) => alias !== current);
  const rules = name === current.name ? config.rules : config.rules.map((rule) => renamed(rule, current.name, name));
  return { ...config, rules, aliases: sorted([...others, withoutEmptyComment({ name, cidr: params.cidr, comment: params.comment })]) };
}

/** Refused with 409 while a rule uses the alias: the ruleset would name an address that does not exist. */
export function deleteAlias(config: FirewallConfig, name: string, digest: string | undefined): FirewallConfig {
  checkDigest(aliasesDigest(config), digest);
  const current = aliasNamed(config, name);
  const users = config.rules.flatMap((rule, pos) => (uses(rule, current.name) ? [pos] : []));
  if (users.length > 0) throw new ApiError('IN_USE', `alias '${current.name}' is used by the rules at positions ${users.join(', ')}`);
  return { ...config, aliases: config.aliases.filter((alias) => alias !== current) };
}

function aliasNamed(config: FirewallConfig, name: string): FirewallAlias {
  const alias = config.aliases.find((existing) => same(existing.name, name));
  if (!alias) throw notFound(`alias '${name}'`);
  return alias;
}

function uses(rule: StoredRule, alias: string): boolean {
  return [...(rule.source ?? []), ...(rule.dest ?? [])].some((address) => same(address, alias));
}

function renamed(rule: StoredRule, from: string, to: string): StoredRule {
  const rename = (addresses: string[] | undefined) => addresses?.map((address) => (same(address, from) ? to : address));
  return uses(rule, from) ? { ...rule, source: rename(rule.source), dest: rename(rule.dest) } : rule;
}

/** PVE's order: by the lower-case name, byte by byte. */
function sorted(aliases: FirewallAlias[]): FirewallAlias[] {
  const key = (alias: FirewallAlias) => alias.name.toLowerCase();
  return aliases.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** PVE keeps no empty comment. */
function withoutEmptyComment(alias: FirewallAlias): FirewallAlias {
  return alias.comment ? alias : { name: alias.name, cidr: alias.cidr };
}
