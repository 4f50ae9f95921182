import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import type { FirewallAlias, FirewallRule } from '@corral/protocol';
import { NodeRow } from '../inventory/nodes/node.entity.js';

/**
 * A node's firewall as the control plane keeps it (PVE's host.fw): options, rules in order (a
 * rule's index is its `pos`) and aliases. The agent renders it into nftables.
 */
@Entity({ name: 'node_firewalls' })
export class NodeFirewallRow {
  @PrimaryColumn('text')
  node!: string;

  @Column('boolean', { default: false })
  enable!: boolean;

  @Column('text', { name: 'policy_in', default: 'DROP' })
  policyIn!: 'ACCEPT' | 'DROP' | 'REJECT';

  @Column('text', { name: 'policy_out', default: 'ACCEPT' })
  policyOut!: 'ACCEPT' | 'DROP' | 'REJECT';

  @Column('jsonb', { default: () => "'[]'" })
  rules!: FirewallRule[];

  @Column('jsonb', { default: () => "'[]'" })
  aliases!: FirewallAlias[];

  @OneToOne(() => NodeRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'node' })
  owner?: NodeRow;
}
