import {
  CLOSE_CODES,
  encodeFrame,
  parseControlPlaneFrame,
  PROTOCOL_VERSION,
  type HeartbeatFrame,
  type HelloFrame,
  type LeaseFrame,
  type RequestFrame,
  type WelcomeFrame,
} from '@corral/protocol';
import WebSocket, { type RawData } from 'ws';
import type { Logger } from '../logging/logger.js';
import type { Outbox, OutboxEntry } from './outbox.js';

/** How a connection ended, and which side ended it. */
export interface Closed {
  readonly code: number;
  readonly reason: string;
  readonly by: 'agent' | 'control plane';
}

export interface ConnectionOptions {
  readonly hello: HelloFrame;
  readonly outbox: Outbox;
  readonly logger: Logger;
  /** How long the control plane has to answer `hello`. */
  readonly welcomeTimeoutMs: number;
  /** The control plane accepted the agent; the outbox has been re-sent. */
  readonly onWelcome: (welcome: WelcomeFrame, resent: number) => void;
  readonly onRequest: (request: RequestFrame) => void;
  /** The control plane stopped the task of request `id`. */
  readonly onCancel: (id: string) => void;
  /** The next heartbeat to send (numbered by the agent's HA lease, across connections). */
  readonly heartbeat: () => HeartbeatFrame;
  /** The control plane renewed the HA lease. */
  readonly onLease: (lease: LeaseFrame) => void;
}

/** Heartbeat intervals without a word from the control plane (a frame or a pong) after which the link counts as dead. */
const SILENT_BEATS = 5;
/** How long a close handshake may take before the socket is destroyed (ws waits 30 s). */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * One websocket to the control plane, from `hello` to close (libs/protocol): `hello` at once,
 * `welcome` within `welcomeTimeoutMs`, then the unacknowledged frames of the outbox in order, a
 * heartbeat (and a ping) at once and every `welcome.heartbeatMs`, requests to `onRequest`, cancels to
 * `onCancel`, leases to `onLease` and acks to the outbox. Every inbound frame is validated; a bad one closes the
 * connection with its close code.
 */
export class Connection {
  /** Resolves once the socket is closed. */
  readonly closed: Promise<Closed>;
  private welcomed = false;
  private closing: { code: number; reason: string } | undefined;
  private lastHeard = Date.now();
  private readonly welcomeTimer: NodeJS.Timeout;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: ConnectionOptions,
  ) {
    this.closed = new Promise((resolve) =>
      socket.once('close', (code: number, reason: Buffer) => {
        clearTimeout(this.welcomeTimer);
        clearInterval(this.heartbeat);
        resolve(this.closing ? { ...this.closing, by: 'agent' } : { code, reason: reason.toString('utf8'), by: 'control plane' });
      }),
    );
    socket.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    socket.on('pong', () => (this.lastHeard = Date.now()));
    socket.on('error', (error) => options.logger.warn('connection error', { error }));
    socket.send(encodeFrame(options.hello));
    this.welcomeTimer = setTimeout(() => this.close(1000, `no welcome within ${options.welcomeTimeoutMs} ms`), options.welcomeTimeoutMs);
  }

  /** Welcomed and open: new numbered frames go out at once. */
  get live(): boolean {
    return this.welcomed && this.socket.readyState === WebSocket.OPEN;
  }

  send(entry: OutboxEntry): void {
    this.socket.send(entry.text);
    this.options.outbox.sent(entry);
  }

  /** Closes with a code and reason for the control plane; destroys the socket if the close handshake hangs. */
  close(code: number, reason: string): void {
    if (this.closing !== undefined) return;
    this.closing = { code, reason };
    this.socket.close(code, closeReason(reason));
    setTimeout(() => this.socket.terminate(), CLOSE_TIMEOUT_MS).unref();
  }

  private receive(data: RawData, isBinary: boolean): void {
    this.lastHeard = Date.now();
    if (isBinary) return this.refuse(CLOSE_CODES.invalidFrame, 'a binary message is not a frame');
    let json: unknown;
    try {
      json = JSON.parse(data.toString());
    } catch {
      return this.refuse(CLOSE_CODES.invalidFrame, 'a message is not JSON');
    }
    const parsed = parseControlPlaneFrame(json);
    if (!parsed.ok) return this.refuse(CLOSE_CODES.invalidFrame, parsed.error);
    const frame = parsed.frame;
    if (frame.type === 'welcome') return this.welcome(frame);
    if (!this.welcomed) return this.refuse(CLOSE_CODES.unexpectedFrame, `${frame.type} before welcome`);
    if (frame.type === 'request') return this.options.onRequest(frame);
    if (frame.type === 'cancel') return this.options.onCancel(frame.id);
    if (frame.type === 'lease') return this.options.onLease(frame);
    const { outbox } = this.options;
    if (!outbox.ack(frame.upTo))
      this.refuse(CLOSE_CODES.unexpectedFrame, `ack ${frame.upTo} is beyond the last frame sent (${outbox.lastSent})`);
  }

  private welcome(welcome: WelcomeFrame): void {
    if (this.welcomed) return this.refuse(CLOSE_CODES.unexpectedFrame, 'a second welcome');
    if (welcome.protocol !== PROTOCOL_VERSION)
      return this.refuse(CLOSE_CODES.unsupportedProtocol, `this agent speaks protocol ${PROTOCOL_VERSION}, not ${welcome.protocol}`);
    if (welcome.node !== this.options.hello.node)
      return this.refuse(CLOSE_CODES.nodeMismatch, `welcomed as node '${welcome.node}', not '${this.options.hello.node}'`);
    clearTimeout(this.welcomeTimer);
    this.welcomed = true;
    const backlog = this.options.outbox.unacknowledged();
    for (const entry of backlog) this.send(entry);
    this.heartbeat = setInterval(() => this.beat(welcome.heartbeatMs), welcome.heartbeatMs);
    this.options.onWelcome(welcome, backlog.length);
    // At once too: a control plane this agent just moved to renews its HA lease on it, without waiting a heartbeat interval.
    this.beat(welcome.heartbeatMs);
  }

  private beat(heartbeatMs: number): void {
    const silentMs = Date.now() - this.lastHeard;
    if (silentMs > heartbeatMs * SILENT_BEATS) {
      // A half-open TCP connection would otherwise look alive until the kernel gives up, many minutes later.
      this.options.logger.warn('the control plane went silent: dropping the connection', { silentMs });
      this.closing ??= { code: 1006, reason: `nothing heard for ${silentMs} ms` };
      this.socket.terminate();
      return;
    }
    this.socket.send(encodeFrame(this.options.heartbeat()));
    this.socket.ping();
  }

  private refuse(code: number, reason: string): void {
    this.options.logger.error('closing the connection: the control plane sent what the protocol does not allow', { code, reason });
    this.close(code, reason);
  }
}

/** A close reason holds at most 123 bytes of UTF-8 (RFC 6455 5.5.1): cut at a character boundary. */
export function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}
