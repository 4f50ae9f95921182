import { Injectable } from '@nestjs/common';
import { NodeView } from '../inventory/nodes/node-view.js';
import { ReplicaIdentity } from './replica-identity.js';
import { ReplicasRepository } from './replicas.repository.js';

/**
 * Which replica holds each node's agent (the node's row, as every replica's NodeView has it) and
 * where each replica is reached (the replicas table; an id is one process, so its address never
 * changes and is kept once read).
 */
@Injectable()
export class ReplicaDirectory {
  private readonly addresses = new Map<string, string>();

  constructor(
    private readonly identity: ReplicaIdentity,
    private readonly replicas: ReplicasRepository,
    private readonly nodes: NodeView,
  ) {}

  /** The replica that holds the online node's agent, when that is another replica than this one; else null. */
  holderElsewhere(node: string): string | null {
    const state = this.nodes.get(node);
    if (state?.online !== true || state.replica === null || state.replica === this.identity.id) return null;
    return state.replica;
  }

  /** Where the replica is reached, or null when it is not up (or never said). */
  async address(replica: string): Promise<string | null> {
    const known = this.addresses.get(replica);
    if (known !== undefined) return known;
    const address = await this.replicas.address(replica);
    if (address !== null) this.addresses.set(replica, address);
    return address;
  }
}
