import { Injectable } from '@nestjs/common';
import { NodeView } from '../inventory/nodes/node-view.js';
import { ReplicaIdentity } from './replica-identity.js';
import { ReplicasRepository } from './replicas.repository.js';

/**
 * Which replica holds each node's agent (the node's row, as every replica's NodeView has it) and
 * where each replica is reached (the replicas table; an id is one process, so its address never
 * changes and is kept once read).
 */
/** How long the list of replicas' addresses is kept before it is read again; a replica writes its heartbeat every 2 s. */
const LIST_MS = 2000;
/** A replica unseen for this long is left out of the list. */
const LISTED_S = 10;

@Injectable()
export class ReplicaDirectory {
  private readonly addresses = new Map<string, string>();
  private listed: { readonly at: number; readonly urls: Promise<string[]> } | null = null;

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

  /**
   * Where every replica that is up is reached, this one included, sorted: what agents are told to
   * try when theirs goes away. Read at most every 2 s. None for a replica that is not set up to run
   * among others (no CORRAL_CLUSTER_SECRET): its agents keep the URL they joined through.
   */
  async urls(): Promise<string[]> {
    if (!this.identity.clustered) return [];
    const now = Date.now();
    if (this.listed === null || now - this.listed.at >= LIST_MS) {
      const urls = this.replicas.addresses(LISTED_S).then((found) => [...new Set([...found, this.identity.address])].sort());
      this.listed = { at: now, urls };
      // A failed read is not kept: the next call reads again.
      urls.catch(() => {
        if (this.listed?.urls === urls) this.listed = null;
      });
    }
    return this.listed.urls;
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
