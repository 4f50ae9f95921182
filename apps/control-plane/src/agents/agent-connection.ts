import {
  CLOSE_CODES,
  encodeFrame,
  parseAgentFrame,
  PROTOCOL_VERSION,
  RUNTIME_CHANGES,
  type AgentFrame,
  type ControlPlaneFrame,
  type HelloFrame,
} from '@corral/protocol';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** Heartbeat interval the agents are told to keep (protocol: 2 s). */
export const HEARTBEAT_MS = 2000;
/** How long an agent has after the upgrade to say hello. */
const HELLO_TIMEOUT_MS = 10_000;
/** The websocket limit on a close reason, in bytes. */
const CLOSE_REASON_BYTES = 123;

/** A numbered frame an agent sends (`result`, `failure`, `log`, `report`, `event`). */
export type NumberedFrame = Extract<AgentFrame, { seq: number }>;

/** What a connection reports to the hub, which routes it to the node's session (AgentLink). */
export interface ConnectionEvents {
  /** A valid hello of the authenticated node arrived; the hub answers with `welcome()` or closes. */
  hello(connection: AgentConnection, hello: HelloFrame): void;
  /** A heartbeat, with its number `n` when the agent holds an HA lease. */
  heartbeat(connection: AgentConnection, n: number | undefined): void;
  /** A numbered frame, in order; the node's session acknowledges it once handled. */
  frame(connection: AgentConnection, frame: NumberedFrame): void;
  closed(connection: AgentConnection, code: number, reason: string): void;
}

/**
 * One agent's websocket, from the upgrade (its credential already checked for `node`) to its close:
 * validates every frame and enforces the order the protocol sets (hello first, once; no control
 * plane frames from the agent), closing with the code that says why (CLOSE_CODES).
 */
export class AgentConnection {
  private greeted = false;
  private readonly helloTimer: NodeJS.Timeout;

  private corked = false;

  constructor(
    readonly node: string,
    private readonly socket: WebSocket,
    private readonly events: ConnectionEvents,
    /** The agent's address as this replica sees it (an IPv4-mapped IPv6 address as IPv4): where other agents reach its node. */
    readonly address = '',
    /** The TLS socket under the websocket: corked while frames are sent within one turn of the event loop. */
    private readonly stream?: Duplex,
  ) {
    this.helloTimer = setTimeout(() => this.close(CLOSE_CODES.unexpectedFrame, 'no hello within 10 s'), HELLO_TIMEOUT_MS);
    socket.on('message', (data, isBinary) => this.receive(isBinary ? null : data.toString()));
    socket.on('close', (code, reason) => {
      clearTimeout(this.helloTimer);
      events.closed(this, code, reason.toString());
    });
    socket.on('error', () => socket.terminate());
  }

  /** `replicas`: where the control plane's replicas are reached, for the agent to try when this one goes away. */
  welcome(replicas: readonly string[]): void {
    this.send({
      type: 'welcome',
      protocol: PROTOCOL_VERSION,
      node: this.node,
      heartbeatMs: HEARTBEAT_MS,
      time: new Date().toISOString(),
      replicas: [...replicas],
      accepts: [RUNTIME_CHANGES],
    });
  }

  /**
   * Sends a frame. The frames sent to one agent within a turn of the event loop (an ack and a
   * lease, a burst of requests) go out in one write: the socket is corked until the turn ends.
   */
  send(frame: ControlPlaneFrame): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.cork();
    this.socket.send(encodeFrame(frame));
  }

  private cork(): void {
    const stream = this.stream;
    if (stream === undefined || this.corked) return;
    this.corked = true;
    stream.cork();
    setImmediate(() => {
      this.corked = false;
      stream.uncork();
    });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, truncate(reason));
  }

  private receive(text: string | null): void {
    let json: unknown;
    try {
      if (text === null) throw new Error('binary message');
      json = JSON.parse(text);
    } catch {
      return this.close(CLOSE_CODES.invalidFrame, 'frames are JSON text messages');
    }
    const parsed = parseAgentFrame(json);
    if (!parsed.ok) return this.close(CLOSE_CODES.invalidFrame, parsed.error);
    const frame = parsed.frame;
    if (frame.type === 'hello') {
      if (this.greeted) return this.close(CLOSE_CODES.unexpectedFrame, 'a second hello');
      if (frame.protocol !== PROTOCOL_VERSION)
        return this.close(CLOSE_CODES.unsupportedProtocol, `this control plane speaks protocol ${PROTOCOL_VERSION}, not ${frame.protocol}`);
      if (frame.node !== this.node)
        return this.close(CLOSE_CODES.nodeMismatch, `the credential is node '${this.node}'s, not '${frame.node}'s`);
      this.greeted = true;
      clearTimeout(this.helloTimer);
      return this.events.hello(this, frame);
    }
    if (!this.greeted) return this.close(CLOSE_CODES.unexpectedFrame, `${frame.type} before hello`);
    if (frame.type === 'heartbeat') return this.events.heartbeat(this, frame.n);
    this.events.frame(this, frame);
  }
}

function truncate(reason: string): string {
  const bytes = Buffer.from(reason);
  return bytes.length <= CLOSE_REASON_BYTES
    ? reason
    : `${bytes
        .subarray(0, CLOSE_REASON_BYTES - 3)
        .toString()
        .replace(/\uFFFD+$/, '')}...`;
}
