import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { InventoryReport } from '@corral/protocol';

/** The host facts of the node's last meaningful inventory report (`/nodes`, `/cluster/status`). */
export type NodeInventory = Omit<InventoryReport, 'kind'>;

/** A joined node: its name, its agent's credential and the state every replica shows. */
@Entity({ name: 'nodes' })
export class NodeRow {
  @PrimaryColumn('text')
  name!: string;

  /** SHA-256 (hex) of the agent's credential, a random 256-bit secret: found by it, so unique. */
  @Index({ unique: true })
  @Column('text', { name: 'credential_hash' })
  credentialHash!: string;

  @CreateDateColumn({ name: 'joined_at', type: 'timestamptz' })
  joinedAt!: Date;

  /** Set by the replica holding the agent's connection; cleared, with a `node-down` event, 10 s after the last heartbeat. */
  @Column('boolean', { default: false })
  online!: boolean;

  /** When a replica last had a heartbeat of it, written every few seconds (not per heartbeat). */
  @Column('timestamptz', { name: 'last_seen', nullable: true })
  lastSeen!: Date | null;

  /** The connection that holds the agent now (a random id per websocket), so a replica only ever marks offline the connection it lost. */
  @Column('text', { nullable: true })
  connection!: string | null;

  /** The replica that holds that connection (its id), where requests for the node are forwarded; null while offline. */
  @Column('text', { nullable: true })
  replica!: string | null;

  /** The address that replica sees the agent connect from: where other agents reach the node (a migration's target). */
  @Column('text', { nullable: true })
  address!: string | null;

  /**
   * Until when the node's agent holds its HA lease (docs/ha.md): renewed with its heartbeats. The
   * agent stops its HA guests itself before this passes unrenewed; the HA manager recovers them
   * elsewhere only after it has passed and the node is offline.
   */
  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;

  @Column('text', { name: 'agent_version', nullable: true })
  agentVersion!: string | null;

  @Column('text', { array: true, default: () => "'{}'" })
  capabilities!: string[];

  @Column('jsonb', { nullable: true })
  inventory!: NodeInventory | null;
}
