import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AGENT_STREAMS_PATH, AGENT_WEBSOCKET_PATH, CLOSE_CODES, parseCommandResult, type CommandName, type EventFrame, type GuestRuntime, type HelloFrame, type LogLine, type ParamsOf, type RequestFrame, type ResultOf } from '@corral/protocol';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import { WebSocketServer, type WebSocket } from 'ws';
import { sha256 } from '../access/auth/authenticator.js';
import { ApiError } from '../errors/api-error.js';
import { recordEvent } from '../events/record-event.js';
import { refuseUpgrade, WebSocketUpgrades, type Upgrade } from '../http/websocket-upgrades.js';
import { LOGGER } from '../logging/loggers.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { NodesRepository } from '../inventory/nodes/nodes.repository.js';
import { AgentConnection, HEARTBEAT_MS, type ConnectionEvents, type NumberedFrame } from './agent-connection.js';
import { agentFailure } from './agent-failure.js';
import { AgentLeases, type LeaseCount } from './agent-leases.js';

/** No heartbeat for this long and the node is offline. */
export const NODE_DOWN_MS = 10_000;
/** How often heartbeats are written and silent nodes of vanished replicas looked for. */
const LIVENESS_MS = 2000;
/** A request's answer may take this much longer than its own timeout (the agent's kill, the way back). */
const ANSWER_GRACE_MS = 5000;
const MAX_FRAME_BYTES = 16 * 1024 * 1024;
const AUTHORIZATION = /^CorralNode ([^:\s]+):(\S+)$/;

export interface RequestOptions {
  readonly timeoutMs: number;
  /** The task this request works for: the agent's idempotency key. */
  readonly upid?: string;
  /** Which run of the command this is, where the task runs it for several guests: with `upid`, the idempotency key. */
  readonly step?: string;
  /** Output lines as they arrive, in order, each once. */
  readonly onLog?: (lines: readonly LogLine[]) => void;
  /** Stops the request: the agent is sent a `cancel`, and the request rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

interface Pending {
  readonly command: CommandName;
  readonly frame: RequestFrame;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly onLog: ((lines: readonly LogLine[]) => void) | undefined;
  readonly timer: NodeJS.Timeout;
  /** Stops listening to the request's abort signal. */
  readonly detach: () => void;
}

/** What the guests area does with an agent's guest frames (`AgentHub.onGuests`). */
export interface GuestListener {
  /** A runtime report: every guest the node's driver knows, with its run state. */
  runtime(node: string, guests: readonly GuestRuntime[]): Promise<void>;
  /**
   * A guest event, inside the transaction that writes it to the event table; resolves false when
   * the frame is no event of the guest (a migrating VM appears on its target and leaves its source
   * without starting or stopping), which is then not written.
   */
  event(db: EntityManager, node: string, frame: EventFrame): Promise<boolean>;
}

/** One node's agent as this replica holds it, across reconnects within one agent session. */
interface Link {
  connection: AgentConnection | null;
  /** A random id per websocket, written to the node's row while this connection holds it. */
  connectionId: string;
  /**
   * Whether `connection` was welcomed: its node row is written and the agent told so. Before, a
   * request waits in `pending` (the agent refuses requests before its welcome, and the welcome
   * sends what is pending), and the liveness check leaves the connection alone (its id may not be
   * in the node's row yet).
   */
  welcomed: boolean;
  session: string | null;
  /** The session's heartbeat numbers, for its HA lease (agent-leases.ts). */
  readonly lease: LeaseCount;
  /** The highest frame number of the session already handled: a re-sent frame up to it is acknowledged, not handled twice. */
  handledUpTo: number;
  /** Numbered frames are handled one after another, in order. */
  queue: Promise<void>;
  ackScheduled: boolean;
  downTimer: NodeJS.Timeout | null;
  readonly pending: Map<string, Pending>;
}

/**
 * The agent hub: accepts agents on `wss://<host>:8006/agent/v1`
 * (their credential checked at the upgrade), keeps each node's session, sends requests and
 * matches their answers, acknowledges numbered frames once handled, and judges liveness: a node
 * whose heartbeats stop for 10 s is offline, with a `node-down` event, and back with `node-up`
 * when its agent says hello again. Also accepts the byte streams agents open beside their
 * connection when asked (`/agent/v1/streams/<id>`).
 */
@Injectable()
export class AgentHub implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly links = new Map<string, Link>();
  private readonly onlineListeners: ((node: string) => void)[] = [];
  private readonly guestListeners: GuestListener[] = [];
  /** The byte streams asked of agents and not yet opened, by stream id. */
  private readonly streams = new Map<string, { readonly node: string; readonly accept: (socket: WebSocket) => void }>();
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private liveness: NodeJS.Timeout | null = null;
  private readonly startedAt = Date.now();

  constructor(
    upgrades: WebSocketUpgrades,
    private readonly dataSource: DataSource,
    private readonly nodes: NodesRepository,
    private readonly view: NodeView,
    private readonly leases: AgentLeases,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    upgrades.route(new RegExp(`^${AGENT_WEBSOCKET_PATH}$`), (upgrade) => this.connect(upgrade));
    upgrades.route(new RegExp(`^${AGENT_STREAMS_PATH}/([^/]+)$`), (upgrade) => this.stream(upgrade));
  }

  onApplicationBootstrap(): void {
    this.liveness = setInterval(() => void this.checkLiveness(), LIVENESS_MS);
    this.liveness.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.liveness) clearInterval(this.liveness);
    for (const link of this.links.values()) {
      if (link.downTimer) clearTimeout(link.downTimer);
      for (const id of link.pending.keys()) this.settle(link, id, new ApiError('SHUTTING_DOWN', 'the control plane is shutting down'));
    }
    this.links.clear();
    // Every socket, also those still before their hello: the HTTPS server does not track upgraded sockets.
    for (const socket of this.server.clients) socket.close(1001, 'the control plane is shutting down');
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Whether this replica holds the node's agent now. */
  holds(node: string): boolean {
    return (this.links.get(node)?.connection ?? null) !== null;
  }

  /** Called with the node's name each time its agent is welcomed here (first connection, reconnect, takeover). */
  onOnline(listener: (node: string) => void): void {
    this.onlineListeners.push(listener);
  }

  /** Follows the guests' run state: runtime reports, and guest events within the transaction that records them. */
  onGuests(listener: GuestListener): void {
    this.guestListeners.push(listener);
  }

  /** Throws the 503 that says why, unless this replica holds the node's agent now. */
  reachable(node: string): void {
    if (!this.holds(node)) throw this.unreachable(node);
  }

  /** The address this replica sees the node's agent connect from, where other agents reach the node (a migration's target); the 503 unless held. */
  address(node: string): string {
    const connection = this.links.get(node)?.connection;
    if (!connection) throw this.unreachable(node);
    return connection.address;
  }

  /** Runs a command of the catalog on the node's agent and resolves with its checked result. */
  async request<K extends CommandName>(node: string, command: K, params: ParamsOf<K>, options: RequestOptions): Promise<ResultOf<K>> {
    const link = this.links.get(node);
    const connection = link?.connection;
    if (!link || !connection) throw this.unreachable(node);
    const id = randomUUID();
    // Params of the catalog are JSON by construction (zod schemas of JSON values).
    const json = params as RequestFrame['params'];
    const frame: RequestFrame = { type: 'request', id, command, params: json, timeoutMs: options.timeoutMs, ...(options.upid ? { upid: options.upid } : {}), ...(options.step ? { step: options.step } : {}) };
    const { signal } = options;
    signal?.throwIfAborted();
    return new Promise<ResultOf<K>>((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(link, id, new ApiError('NODE_TIMEOUT', `node '${node}' did not answer ${command} within ${Math.round(options.timeoutMs / 1000)} s`)),
        options.timeoutMs + ANSWER_GRACE_MS,
      );
      const cancel = () => {
        if (link.welcomed) link.connection?.send({ type: 'cancel', id });
        this.settle(link, id, signal?.reason instanceof Error ? signal.reason : new ApiError('INTERNAL', `${command} was cancelled`));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const detach = () => signal?.removeEventListener('abort', cancel);
      link.pending.set(id, { command, frame, resolve: resolve as (result: unknown) => void, reject, onLog: options.onLog, timer, detach });
      if (link.welcomed) connection.send(frame);
    });
  }

  /**
   * Awaits the byte stream `id` that the node's agent was asked to open (`guest.vnc.open`): once its
   * websocket is upgraded, with the node's credential, it goes to `accept`. Returns what stops the
   * wait; a stream nobody awaits (or awaits from another node) is refused with 404.
   */
  expectStream(node: string, id: string, accept: (socket: WebSocket) => void): () => void {
    const expected = { node, accept };
    this.streams.set(id, expected);
    return () => {
      if (this.streams.get(id) === expected) this.streams.delete(id);
    };
  }

  private unreachable(node: string): ApiError {
    const state = this.view.get(node);
    if (state?.online) {
      return new ApiError('NODE_UNAVAILABLE', `node '${node}' is connected to another control-plane replica; routing requests between replicas is not built yet`);
    }
    return new ApiError('NODE_UNAVAILABLE', `node '${node}' is offline`);
  }

  private async connect({ request, socket, head }: Upgrade): Promise<void> {
    const node = await this.authenticated(request, socket);
    if (node === null) return;
    this.server.handleUpgrade(request, socket, head, (ws) => {
      const events: ConnectionEvents = {
        hello: (c, hello) => void this.hello(c, hello),
        heartbeat: (c, n) => this.heartbeat(c, n),
        frame: (c, frame) => this.frame(c, frame),
        closed: (c, code, reason) => this.closed(c, code, reason),
      };
      new AgentConnection(node, ws, events, remoteAddress(request));
      this.logger.info({ node, address: request.socket.remoteAddress }, 'agent connected');
    });
  }

  private async stream({ request, socket, head, match }: Upgrade): Promise<void> {
    const node = await this.authenticated(request, socket);
    if (node === null) return;
    const id = match[1] ?? '';
    const expected = this.streams.get(id);
    if (expected?.node !== node) {
      this.logger.warn({ node, stream: id }, 'agent stream refused: not awaited from this node (asked by another replica, or given up)');
      return refuseUpgrade(socket, 404, 'Not Found');
    }
    this.streams.delete(id);
    this.server.handleUpgrade(request, socket, head, (ws) => expected.accept(ws));
  }

  /** The node whose credential the upgrade request carries; null once it is refused (401, or 503 when it cannot be checked). */
  private async authenticated(request: IncomingMessage, socket: Duplex): Promise<string | null> {
    const [, node = '', credential = ''] = AUTHORIZATION.exec(request.headers.authorization ?? '') ?? [];
    const credentialHash = sha256(credential);
    let row;
    try {
      row = node === '' ? null : await this.nodes.byCredentialHash(credentialHash);
    } catch (error) {
      this.logger.error({ err: error, node }, 'cannot check an agent credential');
      refuseUpgrade(socket, 503, 'Service Unavailable');
      return null;
    }
    if (!row || row.name !== node) {
      this.logger.warn({ node, address: request.socket.remoteAddress }, 'agent refused: unknown node or wrong credential');
      refuseUpgrade(socket, 401, 'Unauthorized');
      return null;
    }
    return node;
  }

  private async hello(connection: AgentConnection, hello: HelloFrame): Promise<void> {
    const node = connection.node;
    let link = this.links.get(node);
    if (link?.connection && link.connection !== connection) link.connection.close(CLOSE_CODES.replaced, 'a newer connection of this node took over');
    if (!link) {
      link = { connection: null, connectionId: '', welcomed: false, session: null, lease: { heard: 0, granted: 0 }, handledUpTo: 0, queue: Promise.resolve(), ackScheduled: false, downTimer: null, pending: new Map() };
      this.links.set(node, link);
    }
    if (link.session !== hello.session) {
      // A new agent process: what the old one was asked and never answered is lost with it.
      this.wentAway(node, link, 'its agent restarted');
      link.session = hello.session;
      link.handledUpTo = 0;
      // Its heartbeats count from 1 again.
      link.lease.heard = 0;
      link.lease.granted = 0;
    }
    link.connection = connection;
    link.welcomed = false;
    const connectionId = randomUUID();
    link.connectionId = connectionId;
    try {
      await this.dataSource.transaction(async (db) => {
        const back = await this.nodes.connected(db, node, connectionId, hello.agentVersion, hello.capabilities);
        if (back) await recordEvent(db, { event: 'node-up', node, details: { session: hello.session } });
      });
    } catch (error) {
      this.logger.error({ err: error, node }, 'cannot mark a node online');
      return connection.close(1011, 'the control plane cannot record the node');
    }
    if (link.connection !== connection) return;
    connection.welcome();
    link.welcomed = true;
    this.heartbeat(connection);
    // Requests of this session still unanswered are sent again with their ids; the agent runs each once.
    for (const pending of link.pending.values()) connection.send(pending.frame);
    for (const listener of this.onlineListeners) listener(node);
    this.logger.info({ node, session: hello.session, agentVersion: hello.agentVersion, capabilities: hello.capabilities, lastAck: hello.lastAck }, 'node online');
  }

  private heartbeat(connection: AgentConnection, n?: number): void {
    const link = this.links.get(connection.node);
    if (!link || link.connection !== connection) return;
    if (n !== undefined && link.welcomed) link.lease.heard = Math.max(link.lease.heard, n);
    if (link.downTimer) clearTimeout(link.downTimer);
    link.downTimer = setTimeout(() => void this.silent(connection.node, link), NODE_DOWN_MS);
    link.downTimer.unref();
  }

  private frame(connection: AgentConnection, frame: NumberedFrame): void {
    const link = this.links.get(connection.node);
    if (!link || link.connection !== connection) return;
    link.queue = link.queue.then(async () => {
      if (frame.seq > link.handledUpTo) {
        await this.handle(connection.node, link, frame);
        link.handledUpTo = frame.seq;
      }
      this.scheduleAck(link);
    });
    link.queue.catch((error: unknown) => {
      this.logger.error({ err: error, node: connection.node, seq: frame.seq }, 'cannot handle an agent frame; reconnecting it');
      connection.close(1011, 'the control plane could not handle a frame');
      link.queue = Promise.resolve();
    });
  }

  private async handle(node: string, link: Link, frame: NumberedFrame): Promise<void> {
    switch (frame.type) {
      case 'result': {
        const pending = link.pending.get(frame.id);
        if (!pending) return;
        const checked = parseCommandResult(pending.command, frame.result);
        this.settle(link, frame.id, checked.ok ? checked : new ApiError('INTERNAL', `node '${node}' answered with a result that fails its schema: ${checked.message}`));
        return;
      }
      case 'failure':
        if (link.pending.has(frame.id)) this.settle(link, frame.id, agentFailure(node, frame.code, frame.message));
        return;
      case 'log':
        link.pending.get(frame.id)?.onLog?.(frame.lines);
        return;
      case 'report':
        if (frame.payload.kind === 'inventory') {
          const { kind: _kind, ...inventory } = frame.payload;
          this.view.report(node, inventory);
        } else for (const listener of this.guestListeners) await listener.runtime(node, frame.payload.guests);
        return;
      case 'event':
        await this.dataSource.transaction(async (db) => {
          for (const listener of this.guestListeners) if (!(await listener.event(db, node, frame))) return;
          await recordEvent(db, { event: frame.event, node, vmid: frame.vmid, timestamp: new Date(frame.timestamp), details: { session: link.session, seq: frame.seq } });
        });
        return;
    }
  }

  private settle(link: Link, id: string, outcome: { ok: true; result: unknown } | Error): void {
    const pending = link.pending.get(id);
    if (!pending) return;
    link.pending.delete(id);
    clearTimeout(pending.timer);
    pending.detach();
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome.result);
  }

  /**
   * The node went away with requests unanswered: they (and the tasks they work for) end now, naming
   * why, instead of at their timeouts. A late answer of the same agent session finds nothing to settle.
   */
  private wentAway(node: string, link: Link, why: string): void {
    for (const [id, pending] of link.pending) this.settle(link, id, new ApiError('NODE_UNAVAILABLE', `node '${node}' went away before it answered ${pending.command} (${why})`));
  }

  private scheduleAck(link: Link): void {
    if (link.ackScheduled) return;
    link.ackScheduled = true;
    setImmediate(() => {
      link.ackScheduled = false;
      link.connection?.send({ type: 'ack', upTo: link.handledUpTo });
    });
  }

  private closed(connection: AgentConnection, code: number, reason: string): void {
    const link = this.links.get(connection.node);
    this.logger.info({ node: connection.node, code, reason }, 'agent disconnected');
    if (!link || link.connection !== connection) return;
    link.connection = null;
    this.view.forget(connection.node);
    // The down timer keeps running: an agent that is back within 10 s of its last heartbeat was never down.
  }

  /** No heartbeat for NODE_DOWN_MS on this replica's connection: offline, with `node-down`, unless another connection holds it by now. */
  private async silent(node: string, link: Link): Promise<void> {
    link.downTimer = null;
    const connection = link.connection;
    link.connection = null;
    this.view.forget(node);
    this.wentAway(node, link, `no heartbeat for ${NODE_DOWN_MS / 1000} s`);
    try {
      await this.markDown({ connection: link.connectionId });
    } catch (error) {
      this.logger.error({ err: error, node }, 'cannot mark a node offline; the next liveness check will');
    }
    // Closed once the node is offline: an agent that reconnects at once comes back online after it.
    connection?.close(CLOSE_CODES.heartbeatTimeout, `no heartbeat for ${NODE_DOWN_MS / 1000} s`);
  }

  private async checkLiveness(): Promise<void> {
    try {
      const held = [...this.links.values()].flatMap((link) => (link.connection !== null && link.welcomed ? [{ link, connection: link.connection, id: link.connectionId }] : []));
      const holding = new Set(await this.nodes.seen(held.map((each) => each.id)));
      // A node re-joined (a new credential) or taken over by another replica's connection: this one is stale.
      // Only a connection still the link's after the query: a newer one may have come meanwhile.
      for (const { link, connection, id } of held) {
        if (!holding.has(id) && link.connection === connection) connection.close(CLOSE_CODES.replaced, 'the node was re-joined or is held by another connection');
      }
      const leased = held.filter(({ link, connection, id }) => holding.has(id) && link.connection === connection);
      await this.leases.renew(leased.map(({ link, connection, id }) => ({ connectionId: id, count: link.lease, send: (frame) => connection.send(frame) })));
      // Nodes whose replica vanished: no one writes their heartbeats. Judged only after this replica has been up for a heartbeat window.
      if (Date.now() - this.startedAt >= NODE_DOWN_MS) await this.markDown({ silentS: (NODE_DOWN_MS + LIVENESS_MS) / 1000 });
    } catch (error) {
      this.logger.warn({ err: error }, 'liveness check failed');
    }
  }

  private async markDown(which: { readonly connection: string } | { readonly silentS: number }): Promise<void> {
    const down = await this.dataSource.transaction(async (db) => {
      const names = await this.nodes.markOffline(db, which);
      for (const node of names) await recordEvent(db, { event: 'node-down', node, details: { heartbeatMs: HEARTBEAT_MS } });
      return names;
    });
    for (const node of down) this.logger.warn({ node }, 'node down: no heartbeat');
  }
}

/** The peer's address, an IPv4-mapped IPv6 address (`::ffff:192.0.2.10`, from a dual-stack listener) as the IPv4 address it is. */
function remoteAddress(request: IncomingMessage): string {
  return (request.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}
