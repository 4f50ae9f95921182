import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  AGENT_STREAMS_PATH,
  AGENT_WEBSOCKET_PATH,
  type CommandName,
  type HelloFrame,
  type ParamsOf,
  type ResultOf,
} from '@corral/protocol';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { ApiError } from '../errors/api-error.js';
import { WebSocketUpgrades, type Upgrade } from '../http/websocket-upgrades.js';
import { LOGGER } from '../logging/loggers.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { ReplicaDirectory } from '../replicas/replica-directory.js';
import { AgentAnswers } from './agent-answers.js';
import { AgentConnection, type ConnectionEvents } from './agent-connection.js';
import { AgentLink } from './agent-link.js';
import { AgentReports, type GuestListener } from './agent-reports.js';
import { AgentStreams } from './agent-streams.js';
import { AgentUpgrades, remoteAddress } from './agent-upgrades.js';
import { NodeLiveness } from './node-liveness.js';
import { RemoteAgents, type RemoteAgent } from './remote-agents.js';
import type { RequestOptions } from './pending-requests.js';

/**
 * The agent hub: accepts agents on `wss://<host>:8006/agent/v1` (their credential checked at the
 * upgrade, AgentUpgrades) and routes to each node's agent session (AgentLink: requests and their
 * answers, numbered frames and their acks). Liveness is NodeLiveness's: a node whose heartbeats
 * stop for 10 s is offline, with a `node-down` event, and back with `node-up` when its agent says
 * hello again. The byte streams agents open beside their connection when asked
 * (`/agent/v1/streams/<id>`) are AgentStreams'.
 */
@Injectable()
export class AgentHub implements OnApplicationBootstrap, OnModuleDestroy {
  /** The session of each node whose agent this replica holds, or held until it went away. */
  private readonly links = new Map<string, AgentLink>();
  private readonly onlineListeners: ((node: string) => void)[] = [];
  /** The tasks whose last step was still running on an agent when this replica stopped. */
  private readonly handedOver = new Set<string>();
  /** What each agent connection reports, routed to its node's link. */
  private readonly events: ConnectionEvents = {
    hello: (connection, hello) => void this.hello(connection, hello),
    heartbeat: (connection, n) => {
      const link = this.links.get(connection.node);
      if (!link?.heartbeat(connection, n)) return;
      this.liveness.heard(connection.node);
      this.liveness.firstLease(link);
    },
    frame: (connection, frame) => this.links.get(connection.node)?.receive(connection, frame),
    closed: (connection, code, reason) => this.closed(connection, code, reason),
  };

  constructor(
    websocketUpgrades: WebSocketUpgrades,
    private readonly upgrades: AgentUpgrades,
    private readonly streams: AgentStreams,
    private readonly liveness: NodeLiveness,
    private readonly reports: AgentReports,
    private readonly view: NodeView,
    private readonly remote: RemoteAgents,
    private readonly directory: ReplicaDirectory,
    private readonly answers: AgentAnswers,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    websocketUpgrades.route(new RegExp(`^${AGENT_WEBSOCKET_PATH}$`), (upgrade) => this.connect(upgrade));
    websocketUpgrades.route(new RegExp(`^${AGENT_STREAMS_PATH}/([^/]+)$`), (upgrade) => this.streams.open(upgrade));
  }

  onApplicationBootstrap(): void {
    this.liveness.start(this.links);
    this.answers.start(this.links);
  }

  /**
   * Fails the requests waiting here, except those that end their task: their agents move to
   * another replica, which takes the answers, and their tasks are ended with them there (`handsOver`).
   */
  async onModuleDestroy(): Promise<void> {
    this.liveness.stop();
    const shuttingDown = new ApiError('SHUTTING_DOWN', 'the control plane is shutting down');
    for (const link of this.links.values()) {
      for (const upid of link.release()) this.handedOver.add(upid);
      link.drop(() => shuttingDown);
    }
    this.links.clear();
    await this.upgrades.close();
  }

  /** Whether this replica, stopping, left task `upid` waiting for the answer to its last step: the replica that gets the answer ends it. */
  handsOver(upid: string): boolean {
    return this.handedOver.has(upid);
  }

  /** Whether this replica holds the node's agent now. */
  holds(node: string): boolean {
    return this.linkOf(node) !== null;
  }

  /** The seconds since the last heartbeat (or the welcome) of each node whose agent this replica holds. */
  heartbeatAges(): Map<string, number> {
    const now = Date.now();
    const ages = new Map<string, number>();
    for (const [node, link] of this.links) if (link.connection !== null) ages.set(node, (now - link.heardAt) / 1000);
    return ages;
  }

  /** Called with the node's name each time its agent is welcomed here (first connection, reconnect, takeover). */
  onOnline(listener: (node: string) => void): void {
    this.onlineListeners.push(listener);
  }

  /** Follows the guests' run state: runtime reports, and guest events within the transaction that records them. */
  onGuests(listener: GuestListener): void {
    this.reports.onGuests(listener);
  }

  /** Throws the 503 that says why, unless commands reach the node's agent now: held here, or relayed to the replica holding it. */
  reachable(node: string): void {
    this.reach(node);
  }

  /**
   * Throws the 503 that says why, unless this replica holds the node's agent now: what a guest's
   * queue and a stream need, which live in the holding replica (requests for a node are forwarded there).
   */
  holding(node: string): void {
    if (!this.holds(node)) this.refuse(node);
  }

  /** The address the holding replica sees the node's agent connect from, where other agents reach the node (a migration's target); the 503 unless reachable. */
  address(node: string): string {
    return this.reach(node).address;
  }

  /** Runs a command of the catalog on the node's agent and resolves with its checked result. */
  async request<K extends CommandName>(node: string, command: K, params: ParamsOf<K>, options: RequestOptions): Promise<ResultOf<K>> {
    return this.reach(node).request(command, params, options);
  }

  /**
   * Awaits the byte stream `id` that the node's agent was asked to open (`guest.vnc.open`): once its
   * websocket is upgraded, with the node's credential, it goes to `accept`. Returns what stops the
   * wait; a stream nobody awaits (or awaits from another node) is refused with 404.
   */
  expectStream(node: string, id: string, accept: (socket: WebSocket) => void): () => void {
    return this.streams.expect(node, id, accept);
  }

  /** The link that serves the node's requests: its session here while this replica holds the node's agent; else null. */
  private linkOf(node: string): AgentLink | null {
    const link = this.links.get(node);
    return link?.connection ? link : null;
  }

  /** The node's link here, or its agent on the replica holding it; or the 503 that says why there is none. */
  private reach(node: string): AgentLink | RemoteAgent {
    return this.linkOf(node) ?? this.remote.of(node) ?? this.refuse(node);
  }

  private refuse(node: string): never {
    if (this.view.get(node)?.online) {
      throw new ApiError(
        'NODE_UNAVAILABLE',
        `node '${node}' is connected to another control-plane replica, and this runs only on the replica holding its agent (requests under /nodes/${node} are forwarded there when every replica has the same CORRAL_CLUSTER_SECRET)`,
      );
    }
    throw new ApiError('NODE_UNAVAILABLE', `node '${node}' is offline`);
  }

  private async connect(upgrade: Upgrade): Promise<void> {
    const node = await this.upgrades.authenticate(upgrade);
    if (node === null) return;
    this.upgrades.accept(upgrade, (socket) => {
      new AgentConnection(node, socket, this.events, remoteAddress(upgrade), upgrade.socket);
      this.logger.info({ node, address: upgrade.request.socket.remoteAddress }, 'agent connected');
    });
  }

  private async hello(connection: AgentConnection, hello: HelloFrame): Promise<void> {
    const node = connection.node;
    const link = this.sessionLink(node, hello.session);
    const connectionId = link.attach(connection);
    let replicas: string[];
    try {
      await this.liveness.up(node, connectionId, connection.address, hello, link.recorded());
      replicas = await this.directory.urls();
    } catch (error) {
      this.logger.error({ err: error, node }, 'cannot mark a node online');
      return connection.close(1011, 'the control plane cannot record the node');
    }
    if (!link.welcome(connection, replicas)) return;
    this.liveness.heard(node);
    for (const listener of this.onlineListeners) listener(node);
    this.logger.info(
      { node, session: hello.session, agentVersion: hello.agentVersion, capabilities: hello.capabilities, lastAck: hello.lastAck },
      'node online',
    );
  }

  /** The node's link for the agent session that said hello: the one it has, or a new one that replaces it (a new agent process). */
  private sessionLink(node: string, session: string): AgentLink {
    const link = this.links.get(node);
    if (link?.session === session) return link;
    link?.replaced();
    const next = new AgentLink(node, session, this.reports, this.logger, this.answers);
    this.links.set(node, next);
    return next;
  }

  private closed(connection: AgentConnection, code: number, reason: string): void {
    this.logger.info({ node: connection.node, code, reason }, 'agent disconnected');
    // The down timer keeps running: an agent that is back within 10 s of its last heartbeat was never down.
    if (this.links.get(connection.node)?.detach(connection)) this.view.forget(connection.node);
  }
}
