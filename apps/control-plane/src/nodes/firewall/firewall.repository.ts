import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NodeFirewallRow } from '../node-firewall.entity.js';
import { DEFAULT_FIREWALL, type FirewallConfig } from './firewall-config.js';

/** The node_firewalls table: one row per node whose firewall was ever changed. */
@Injectable()
export class NodeFirewallRepository {
  constructor(private readonly dataSource: DataSource) {}

  async read(node: string): Promise<FirewallConfig> {
    const row = await this.dataSource.manager.findOneBy(NodeFirewallRow, { node });
    return row ? configOf(row) : DEFAULT_FIREWALL;
  }

  /** Locks the node's row within `db`'s transaction, creating it with the defaults first: changes of one node's firewall run one after another. */
  async lock(db: EntityManager, node: string): Promise<FirewallConfig> {
    await db.createQueryBuilder().insert().into(NodeFirewallRow).values({ node }).orIgnore().execute();
    return (await this.lockExisting(db, node)) ?? DEFAULT_FIREWALL;
  }

  /** Locks the node's row if it has one: null for a node whose firewall was never changed. */
  async lockExisting(db: EntityManager, node: string): Promise<FirewallConfig | null> {
    const row = await db.findOne(NodeFirewallRow, { where: { node }, lock: { mode: 'pessimistic_write' } });
    return row ? configOf(row) : null;
  }

  async save(db: EntityManager, node: string, config: FirewallConfig): Promise<void> {
    await db.update(
      NodeFirewallRow,
      { node },
      {
        enable: config.enabled,
        policyIn: config.policyIn,
        policyOut: config.policyOut,
        rules: [...config.rules],
        aliases: [...config.aliases],
      },
    );
  }
}

function configOf(row: NodeFirewallRow): FirewallConfig {
  return { enabled: row.enable, policyIn: row.policyIn, policyOut: row.policyOut, rules: row.rules, aliases: row.aliases };
}
