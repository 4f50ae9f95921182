import { badParam } from '../../errors/resource-errors.js';
import { DEFAULT_FIREWALL, type FirewallConfig, optionsDigest } from './firewall-config.js';
import { checkDigest } from '../../http/entry-changes.js';
import type { DELETABLE_OPTIONS, OptionsEntry } from './firewall.endpoints.js';

export interface OptionsParams {
  readonly enable?: boolean;
  readonly policy_in?: FirewallConfig['policyIn'];
  readonly policy_out?: FirewallConfig['policyOut'];
  /** Back to the default. */
  readonly delete?: readonly (typeof DELETABLE_OPTIONS)[number][];
  readonly digest?: string;
}

export function optionsEntry(config: FirewallConfig): OptionsEntry {
  return { enable: config.enabled ? 1 : 0, policy_in: config.policyIn, policy_out: config.policyOut, digest: optionsDigest(config) };
}

export function setOptions(config: FirewallConfig, params: OptionsParams): FirewallConfig {
  checkDigest(optionsDigest(config), params.digest);
  const cleared = new Set(params.delete);
  for (const name of cleared) if (params[name] !== undefined) throw badParam('delete', `cannot both set and delete '${name}'`);
  const pick = <T>(name: (typeof DELETABLE_OPTIONS)[number], given: T | undefined, current: T, fallback: T): T =>
    cleared.has(name) ? fallback : (given ?? current);
  return {
    ...config,
    enabled: pick('enable', params.enable, config.enabled, DEFAULT_FIREWALL.enabled),
    policyIn: pick('policy_in', params.policy_in, config.policyIn, DEFAULT_FIREWALL.policyIn),
    policyOut: pick('policy_out', params.policy_out, config.policyOut, DEFAULT_FIREWALL.policyOut),
  };
}
