import { CLOSE_CODES, type CommandName, type EventFrame, type ParamsOf, type ReportFrame, type ResultOf } from '@corral/protocol';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentConnection, NumberedFrame } from './agent-connection.js';
import type { LeaseCount } from './agent-leases.js';
import { wentAway } from './agent-failure.js';
import { PendingRequests, type AnswerFrame, type HandedAnswer, type RecordedCommand, type RequestOptions } from './pending-requests.js';

/** Where a link hands its node's reports and events, each once, in order; a rejection closes the connection, and the agent sends the frame again on its next one. */
export interface NodeFrames {
  handle(node: string, session: string, frame: ReportFrame | EventFrame): Promise<void>;
}

/**
 * Where the links record the requests of tasks before they are sent, and hand the answers no
 * request of theirs waits for (agent-answers.ts).
 */
export interface HandedRequests {
  record(node: string, session: string, request: RecordedCommand): Promise<void>;
  forget(id: string): void;
  /** An answer or output lines of a request that does not wait here: kept for the replica that waits, if any does. */
  stray(node: string, frame: AnswerFrame): Promise<void>;
}

const TOOK_OVER = 'a newer connection of this node took over';

/**
 * One node's agent session (`hello.session`: one run of its agent process) as this replica holds
 * it, across the session's reconnects: its websocket, the numbered frames it handled and
 * acknowledged, its heartbeat numbers for the HA lease, and the requests sent to it and not
 * answered yet. A new session of the node replaces the link with a new one (`replaced`): what the
 * old session was asked and never answered is lost with it. The session may go on at another
 * replica (its agent moved): answers to requests sent from here then reach this link through the
 * database (`handOver`), and answers this link gets to requests of another replica go there (`HandedRequests`).
 */
export class AgentLink {
  /** The session's heartbeat numbers, for its HA lease (agent-leases.ts). */
  readonly lease: LeaseCount = { heard: 0, granted: 0 };
  /** When the current connection was welcomed or last heartbeated (ms since the epoch). */
  heardAt = 0;
  private readonly pending: PendingRequests;
  private current: AgentConnection | null = null;
  private currentId = '';
  private greeted = false;
  /** The highest frame number of the session already handled: a re-sent frame up to it is acknowledged, not handled twice. */
  private handledUpTo = 0;
  /** Numbered frames are handled one after another, in order. */
  private queue: Promise<void> = Promise.resolve();
  private ackScheduled = false;

  constructor(
    readonly node: string,
    readonly session: string,
    private readonly frames: NodeFrames,
    private readonly logger: Logger,
    private readonly handed?: HandedRequests,
  ) {
    this.pending = new PendingRequests(
      node,
      (frame) => {
        if (this.greeted) this.current?.send(frame);
      },
      handed && { record: (request) => handed.record(node, session, request), forget: (id) => handed.forget(id) },
    );
  }

  /** The session's connection now; null while its agent is away (a reconnect may bring it back). */
  get connection(): AgentConnection | null {
    return this.current;
  }

  /** A random id per websocket, written to the node's row while its connection holds it; the last connection's once it closed. */
  get connectionId(): string {
    return this.currentId;
  }

  /**
   * Whether the connection was welcomed: its node row is written and the agent told so. Before, a
   * request waits (the agent refuses requests before its welcome, and the welcome sends what
   * waits), and the liveness check leaves the connection alone (its id may not be in the node's row yet).
   */
  get welcomed(): boolean {
    return this.greeted;
  }

  /** The address this replica sees the agent connect from ('' while it has no connection). */
  get address(): string {
    return this.current?.address ?? '';
  }

  /** A connection of this session said hello: it is the link's now, not yet welcomed, and a previous one is closed. Returns its new connection id. */
  attach(connection: AgentConnection): string {
    if (this.current && this.current !== connection) this.current.close(CLOSE_CODES.replaced, TOOK_OVER);
    this.current = connection;
    this.greeted = false;
    this.currentId = randomUUID();
    return this.currentId;
  }

  /**
   * Welcomes the connection once its node is recorded online, unless another one took over
   * meanwhile (then false), naming the `replicas` the agent may go to. The requests of this
   * session still unanswered are sent again.
   */
  welcome(connection: AgentConnection, replicas: readonly string[]): boolean {
    if (this.current !== connection) return false;
    connection.welcome(replicas);
    this.greeted = true;
    this.heardAt = Date.now();
    // A new connection's first numbered heartbeat gets a lease at once (NodeLiveness.firstLease).
    this.lease.granted = 0;
    this.pending.resend();
    return true;
  }

  /** A heartbeat on the connection; false when the connection is not the link's (anymore). */
  heartbeat(connection: AgentConnection, n: number | undefined): boolean {
    if (this.current !== connection) return false;
    if (n !== undefined && this.greeted) this.lease.heard = Math.max(this.lease.heard, n);
    this.heardAt = Date.now();
    return true;
  }

  /** A numbered frame on the connection: handled once per session, in order, then acknowledged (acks batched per turn of the event loop). */
  receive(connection: AgentConnection, frame: NumberedFrame): void {
    if (this.current !== connection) return;
    this.queue = this.queue.then(async () => {
      if (frame.seq > this.handledUpTo) {
        await this.handle(frame);
        this.handledUpTo = frame.seq;
      }
      this.scheduleAck();
    });
    this.queue.catch((error: unknown) => {
      this.logger.error({ err: error, node: this.node, seq: frame.seq }, 'cannot handle an agent frame; reconnecting it');
      connection.close(1011, 'the control plane could not handle a frame');
      this.queue = Promise.resolve();
    });
  }

  /** The connection closed; true when it was the link's. Its requests wait for the session's next connection. */
  detach(connection: AgentConnection): boolean {
    if (this.current !== connection) return false;
    this.current = null;
    return true;
  }

  /**
   * The session's agent is gone from this replica: its connection is dropped (and returned, for
   * the caller to close with the code that says why) and its unanswered requests fail with `error`,
   * except, with `keepRecorded`, those of tasks (PendingRequests.failAll).
   */
  drop(error: (command: CommandName) => Error, options: { keepRecorded?: boolean } = {}): AgentConnection | null {
    const connection = this.current;
    this.current = null;
    this.pending.failAll(error, options);
    return connection;
  }

  /** The ids of the requests of tasks that wait here, whose answers another replica may store. */
  recorded(): string[] {
    return this.pending.recorded();
  }

  /** The answer to request `id` of this link, stored by the replica the session moved to. */
  handOver(id: string, handed: HandedAnswer): void {
    this.pending.handOver(id, handed);
  }

  /** Lets go of the requests that end their task, unsettled, at shutdown; returns their tasks' UPIDs (PendingRequests.release). */
  release(): string[] {
    return this.pending.release();
  }

  /** A new session of the node took over (its agent process restarted): this one's connection is closed and its requests fail. */
  replaced(): void {
    this.drop(wentAway(this.node, 'its agent restarted'))?.close(CLOSE_CODES.replaced, TOOK_OVER);
  }

  /** Runs a command of the catalog on the session's agent (sent at once once welcomed, else at the welcome) and resolves with its checked result. */
  request<K extends CommandName>(command: K, params: ParamsOf<K>, options: RequestOptions): Promise<ResultOf<K>> {
    return this.pending.request(command, params, options);
  }

  private async handle(frame: NumberedFrame): Promise<void> {
    if (frame.type === 'report' || frame.type === 'event') await this.frames.handle(this.node, this.session, frame);
    else if (!this.pending.answer(frame)) await this.handed?.stray(this.node, frame);
  }

  private scheduleAck(): void {
    if (this.ackScheduled) return;
    this.ackScheduled = true;
    setImmediate(() => {
      this.ackScheduled = false;
      this.current?.send({ type: 'ack', upTo: this.handledUpTo });
    });
  }
}
