import { Inject, Injectable } from '@nestjs/common';
import { CLOSE_CODES, type HelloFrame } from '@corral/protocol';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { recordEvent } from '../events/record-event.js';
import { LOGGER } from '../logging/loggers.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { NodesRepository } from '../inventory/nodes/nodes.repository.js';
import { ReplicaIdentity } from '../replicas/replica-identity.js';
import { HEARTBEAT_MS } from './agent-connection.js';
import { AgentLeases } from './agent-leases.js';
import { AgentRequestsRepository } from './agent-requests.repository.js';
import type { AgentLink } from './agent-link.js';
import { wentAway } from './agent-failure.js';

/** No heartbeat for this long and the node is offline. */
const NODE_DOWN_MS = 10_000;
/** How often heartbeats are written and silent nodes of vanished replicas looked for. */
const LIVENESS_MS = 2000;
/**
 * The period is split into this many turns of 100 ms, each for the nodes whose name falls in it:
 * a thousand agents' heartbeats and leases are written and sent fifty at a time, not in one burst.
 * Every lease is a TLS write of its own: five hundred at once held the event loop for up to 65 ms
 * (two thousand agents in four turns), and every request waited behind them.
 */
const TURNS = 20;
const SILENT = `no heartbeat for ${NODE_DOWN_MS / 1000} s`;

/**
 * The nodes' liveness as the database records it: online at their agent's hello (with `node-up`
 * when back), the heartbeats of the agents this replica holds written every 2 s (a twentieth of the
 * nodes every 100 ms; their HA leases renewed in the same turn), and offline with `node-down` when a node's heartbeats
 * stop for 10 s here, or for 12 s on a replica that vanished.
 */
@Injectable()
export class NodeLiveness {
  /** The node-down timer of each node held here, restarted by every heartbeat. */
  private readonly downTimers = new Map<string, NodeJS.Timeout>();
  private links: ReadonlyMap<string, AgentLink> = new Map();
  private tick: NodeJS.Timeout | null = null;
  private turn = 0;
  private readonly startedAt = Date.now();

  constructor(
    private readonly dataSource: DataSource,
    private readonly nodes: NodesRepository,
    private readonly view: NodeView,
    private readonly leases: AgentLeases,
    private readonly identity: ReplicaIdentity,
    private readonly requests: AgentRequestsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts the liveness tick over `links`, the link of each node whose agent this replica holds, by node. */
  start(links: ReadonlyMap<string, AgentLink>): void {
    this.links = links;
    this.tick = setInterval(() => void this.check(), LIVENESS_MS / TURNS);
    this.tick.unref();
  }

  stop(): void {
    if (this.tick) clearInterval(this.tick);
    for (const timer of this.downTimers.values()) clearTimeout(timer);
    this.downTimers.clear();
  }

  /**
   * Records the node online, held by the connection `connectionId` from `address`, with `node-up`
   * when it comes back after it was marked offline; `waiting`: the requests of the session this
   * replica waits to send.
   */
  async up(node: string, connectionId: string, address: string, hello: HelloFrame, waiting: readonly string[]): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      // A new session: what the node's previous agent process was asked, it never answers.
      await this.requests.abandon(db, [node], 'its agent restarted', hello.session);
      // The same session: what it was asked and neither runs nor answered, it never got (a replica stopped before sending it).
      if (hello.requests !== undefined)
        await this.requests.lose(
          db,
          node,
          hello.session,
          [...hello.requests, ...waiting],
          'the replica that asked stopped before sending it',
        );
      const back = await this.nodes.connected(
        db,
        node,
        connectionId,
        { replica: this.identity.id, address },
        hello.agentVersion,
        hello.capabilities,
      );
      if (back) await recordEvent(db, { event: 'node-up', node, details: { session: hello.session } });
    });
  }

  /**
   * A heartbeat (or the welcome) on the node's connection here: without another for NODE_DOWN_MS
   * it is offline. The timer outlives a closed connection: an agent that is back within 10 s of its
   * last heartbeat was never down.
   */
  heard(node: string): void {
    clearTimeout(this.downTimers.get(node));
    const timer = setTimeout(() => void this.silent(node), NODE_DOWN_MS);
    timer.unref();
    this.downTimers.set(node, timer);
  }

  /**
   * A numbered heartbeat of a session that has no lease from this replica yet (its agent just came,
   * or moved here from another replica): its lease is granted at once, not at the next tick, so an
   * agent that moves between replicas keeps its HA lease without a gap.
   */
  firstLease(link: AgentLink): void {
    const connection = link.connection;
    if (connection === null || !link.welcomed || link.lease.granted > 0 || link.lease.heard === 0) return;
    void this.leases.renew([{ connectionId: link.connectionId, count: link.lease, send: (frame) => connection.send(frame) }]);
  }

  /**
   * No heartbeat for NODE_DOWN_MS on this replica's connection: offline, with `node-down`, unless
   * another connection holds it by now. Then the session goes on elsewhere (its agent moved to
   * another replica): the requests of tasks wait for the answers that replica stores; the others fail.
   */
  private async silent(node: string): Promise<void> {
    this.downTimers.delete(node);
    const link = this.links.get(node);
    if (!link) return;
    this.view.forget(node);
    let down = true;
    try {
      down = (await this.markDown({ connection: link.connectionId })).length > 0;
    } catch (error) {
      this.logger.error({ err: error, node }, 'cannot mark a node offline; the next liveness check will');
    }
    const connection = link.drop(wentAway(node, down ? SILENT : 'its agent moved to another control-plane replica'), {
      keepRecorded: !down,
    });
    // Closed once the node is offline: an agent that reconnects at once comes back online after it.
    connection?.close(CLOSE_CODES.heartbeatTimeout, SILENT);
  }

  /** One turn: the heartbeats and leases of the nodes held here whose turn it is; once a period, the nodes of vanished replicas. */
  private async check(): Promise<void> {
    const turn = this.turn;
    this.turn = (turn + 1) % TURNS;
    try {
      const held = [...this.links.values()].flatMap((link) =>
        link.connection !== null && link.welcomed && turnOf(link.node) === turn
          ? [{ link, connection: link.connection, id: link.connectionId }]
          : [],
      );
      const holding = new Set(await this.nodes.seen(held.map((each) => each.id)));
      // A node re-joined (a new credential) or taken over by another replica's connection: this one is stale.
      // Only a connection still the link's after the query: a newer one may have come meanwhile.
      for (const { link, connection, id } of held) {
        if (!holding.has(id) && link.connection === connection)
          connection.close(CLOSE_CODES.replaced, 'the node was re-joined or is held by another connection');
      }
      const leased = held.filter(({ link, connection, id }) => holding.has(id) && link.connection === connection);
      await this.leases.renew(
        leased.map(({ link, connection, id }) => ({ connectionId: id, count: link.lease, send: (frame) => connection.send(frame) })),
      );
      // Nodes whose replica vanished: no one writes their heartbeats. Judged only after this replica has been up for a heartbeat window.
      if (turn === 0 && Date.now() - this.startedAt >= NODE_DOWN_MS) await this.markDown({ silentS: (NODE_DOWN_MS + LIVENESS_MS) / 1000 });
    } catch (error) {
      this.logger.warn({ err: error }, 'liveness check failed');
    }
  }

  /** Marks offline, with `node-down`, the nodes `which` selects; their agents' unanswered requests are answered `gone`. Returns those nodes. */
  private async markDown(which: { readonly connection: string } | { readonly silentS: number }): Promise<string[]> {
    const down = await this.dataSource.transaction(async (db) => {
      const names = await this.nodes.markOffline(db, which);
      for (const node of names) await recordEvent(db, { event: 'node-down', node, details: { heartbeatMs: HEARTBEAT_MS } });
      await this.requests.abandon(db, names, SILENT);
      return names;
    });
    for (const node of down) this.logger.warn({ node }, 'node down: no heartbeat');
    return down;
  }
}

/** The turn of the liveness period in which node `name` is handled: the same at every period. */
function turnOf(name: string): number {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  return Math.abs(hash) % TURNS;
}
