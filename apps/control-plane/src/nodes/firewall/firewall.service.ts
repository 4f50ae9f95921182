import { Inject, Injectable } from '@nestjs/common';
import type { FirewallAlias } from '@corral/protocol';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AgentHub } from '../../agents/agent-hub.js';
import { LOGGER } from '../../logging/loggers.js';
import { commandParams } from '../../agents/command-params.js';
import { HOST_WRITE_MS } from '../../agents/host-timeouts.js';
import { NodesService } from '../nodes.service.js';
import { aliasEntries, aliasEntry, createAlias, deleteAlias, updateAlias } from './firewall-aliases.js';
import { rulesetOf, type FirewallConfig } from './firewall-config.js';
import { optionsEntry, setOptions, type OptionsParams } from './firewall-options.js';
import { deleteRule, insertRule, ruleEntries, ruleEntry, updateRule } from './firewall-rules.js';
import type { AliasEntry, OptionsEntry, RuleEntry } from './firewall.endpoints.js';
import { NodeFirewallRepository } from './firewall.repository.js';

type Edit = (config: FirewallConfig) => FirewallConfig;

/** The API's name of each ruleset field whose name differs, for a 400 the caller can act on. */
const PARAM_OF: Readonly<Record<string, string>> = {
  enabled: 'enable',
  icmpType: 'icmp-type',
  policyIn: 'policy_in',
  policyOut: 'policy_out',
};

/**
 * The node firewall: stored here, applied by the node's agent. Each change runs in one
 * transaction that holds the node's firewall row: the new ruleset is checked against the
 * protocol, stored, and, when this replica holds the node's agent, applied by it before the
 * commit, so a ruleset the host refuses (`nft -c`) is rolled back with the host's message. A node
 * that is offline gets its stored ruleset when its agent is welcomed again.
 */
@Injectable()
export class NodeFirewallService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: NodeFirewallRepository,
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    hub.onOnline((node) => void this.push(node));
  }

  index(node: string): { name: string }[] {
    this.nodes.existing(node);
    return [{ name: 'aliases' }, { name: 'options' }, { name: 'rules' }];
  }

  async rules(node: string): Promise<RuleEntry[]> {
    return ruleEntries(await this.read(node));
  }

  async rule(node: string, pos: number): Promise<RuleEntry> {
    return ruleEntry(await this.read(node), pos);
  }

  createRule(node: string, params: Parameters<typeof insertRule>[1]): Promise<void> {
    return this.change(node, (config) => insertRule(config, params));
  }

  updateRule(node: string, pos: number, params: Parameters<typeof updateRule>[2]): Promise<void> {
    return this.change(node, (config) => updateRule(config, pos, params));
  }

  deleteRule(node: string, pos: number, digest: string | undefined): Promise<void> {
    return this.change(node, (config) => deleteRule(config, pos, digest));
  }

  async aliases(node: string): Promise<AliasEntry[]> {
    return aliasEntries(await this.read(node));
  }

  async alias(node: string, name: string): Promise<AliasEntry> {
    return aliasEntry(await this.read(node), name);
  }

  createAlias(node: string, alias: FirewallAlias): Promise<void> {
    return this.change(node, (config) => createAlias(config, alias));
  }

  updateAlias(node: string, params: Parameters<typeof updateAlias>[1]): Promise<void> {
    return this.change(node, (config) => updateAlias(config, params));
  }

  deleteAlias(node: string, name: string, digest: string | undefined): Promise<void> {
    return this.change(node, (config) => deleteAlias(config, name, digest));
  }

  async options(node: string): Promise<OptionsEntry> {
    return optionsEntry(await this.read(node));
  }

  setOptions(node: string, params: OptionsParams): Promise<void> {
    return this.change(node, (config) => setOptions(config, params));
  }

  private async read(node: string): Promise<FirewallConfig> {
    this.nodes.existing(node);
    return this.repository.read(node);
  }

  private async change(node: string, edit: Edit): Promise<void> {
    this.nodes.existing(node);
    await this.dataSource.transaction(async (db) => {
      const next = edit(await this.repository.lock(db, node));
      // The whole ruleset against the agent's own schema: what spans fields (ports need a port protocol, aliases must exist).
      const ruleset = commandParams('node.firewall.apply', rulesetOf(next), ([section, , field]) => {
        const name = String(section === 'rules' || section === 'aliases' ? (field ?? (section === 'rules' ? 'pos' : 'name')) : section);
        return PARAM_OF[name] ?? name;
      });
      await this.repository.save(db, node, next);
      // Asked after the lock: an agent welcomed meanwhile has been given the ruleset committed before, and gets this one now.
      if (this.hub.holds(node)) await this.hub.request(node, 'node.firewall.apply', ruleset, { timeoutMs: HOST_WRITE_MS });
    });
  }

  /** The stored ruleset, to an agent just welcomed here: under the row lock, so a change under way is not overtaken by an older ruleset. */
  private async push(node: string): Promise<void> {
    try {
      await this.dataSource.transaction(async (db) => {
        const config = await this.repository.lockExisting(db, node);
        if (config && this.hub.holds(node))
          await this.hub.request(node, 'node.firewall.apply', rulesetOf(config), { timeoutMs: HOST_WRITE_MS });
      });
    } catch (error) {
      this.logger.warn({ err: error, node }, 'cannot apply the stored firewall to a node that came online');
    }
  }
}
