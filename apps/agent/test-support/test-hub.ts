import { selfSignedIdentity, waitFor } from '@corral/testing';
import { AGENT_WEBSOCKET_PATH, parseAgentFrame, type AgentFrame, type ControlPlaneFrame } from '@corral/protocol';
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export const NODE = 'pve1';
export const CREDENTIAL = 'c0rral-node-credential-5f0c2a9e';
const WAIT = { timeoutMs: 15_000 };

/** One agent connection as the control plane's side sees it: every frame received, checked as the hub checks it. */
export class HubConnection {
  readonly frames: AgentFrame[] = [];
  /** Messages that were no valid agent frame (a test expects none). */
  readonly invalid: string[] = [];
  closed: { code: number; reason: string } | undefined;
  /** Acknowledge every numbered frame as it arrives, as a control plane that handled it. */
  acking = false;

  constructor(
    readonly socket: WebSocket,
    /** The Authorization header of the upgrade request. */
    readonly authorization: string | undefined,
  ) {
    socket.on('message', (data: Buffer) => {
      const parsed = parseAgentFrame(JSON.parse(data.toString('utf8')));
      if (!parsed.ok) return void this.invalid.push(`${parsed.error}: ${data.toString('utf8')}`);
      this.frames.push(parsed.frame);
      if (this.acking && 'seq' in parsed.frame) this.send({ type: 'ack', upTo: parsed.frame.seq });
    });
    socket.on('close', (code: number, reason: Buffer) => (this.closed = { code, reason: reason.toString('utf8') }));
  }

  send(frame: ControlPlaneFrame | Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  welcome(heartbeatMs = 100, node = NODE, replicas?: readonly string[]): void {
    this.send({ type: 'welcome', protocol: 1, node, heartbeatMs, time: new Date().toISOString(), ...(replicas ? { replicas } : {}) });
  }

  request(id: string, command: string, params: Record<string, unknown> = {}, extra: { timeoutMs?: number; upid?: string } = {}): void {
    this.send({
      type: 'request',
      id,
      command,
      params,
      timeoutMs: extra.timeoutMs ?? 60_000,
      ...(extra.upid === undefined ? {} : { upid: extra.upid }),
    });
  }

  /** The frames of one type, in the order received. */
  ofType<T extends AgentFrame['type']>(type: T): Extract<AgentFrame, { type: T }>[] {
    return this.frames.filter((frame): frame is Extract<AgentFrame, { type: T }> => frame.type === type);
  }

  /** Waits for the answer (result or failure) to request `id`. */
  async answer(id: string): Promise<Extract<AgentFrame, { type: 'result' | 'failure' }>> {
    const find = () =>
      this.frames.find(
        (frame): frame is Extract<AgentFrame, { type: 'result' | 'failure' }> =>
          (frame.type === 'result' || frame.type === 'failure') && frame.id === id,
      );
    await waitFor(() => find() !== undefined, { ...WAIT, what: `the answer to ${id}` });
    return find() as Extract<AgentFrame, { type: 'result' | 'failure' }>;
  }

  async count(type: AgentFrame['type'], atLeast: number): Promise<void> {
    await waitFor(() => this.ofType(type).length >= atLeast, { ...WAIT, what: `${atLeast} ${type} frames` });
  }

  async whenClosed(): Promise<{ code: number; reason: string }> {
    await waitFor(() => this.closed !== undefined, { ...WAIT, what: 'the connection to close' });
    return this.closed as { code: number; reason: string };
  }
}

/**
 * The control plane's end of the agent protocol for tests: a real HTTPS server with a self-signed
 * certificate that upgrades `/agent/v1` to a websocket when the credential is right (HTTP 401
 * otherwise, or `refuseWith` for every upgrade), and leaves the rest of the protocol to the test.
 */
export class TestHub {
  readonly connections: HubConnection[] = [];
  /** Upgrade requests seen, accepted or not. */
  upgrades = 0;

  private constructor(
    private readonly server: Server,
    private readonly sockets: WebSocketServer,
    readonly url: URL,
    readonly identity: Awaited<ReturnType<typeof selfSignedIdentity>>,
  ) {}

  /** The SHA-256 fingerprint of its certificate, which the agent pins. */
  get fingerprint(): string {
    return this.identity.fingerprint;
  }

  /** `identity`: the certificate and key of another hub, as the replicas of one control plane share theirs. */
  static async start(options: { refuseWith?: number; identity?: TestHub['identity'] } = {}): Promise<TestHub> {
    const identity = options.identity ?? (await selfSignedIdentity());
    const server = createServer({ key: identity.key, cert: identity.cert });
    const sockets = new WebSocketServer({ noServer: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const hub = new TestHub(server, sockets, new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), identity);
    server.on('upgrade', (request, socket, head) => {
      hub.upgrades += 1;
      const status =
        options.refuseWith ??
        (request.url === AGENT_WEBSOCKET_PATH && request.headers.authorization === `CorralNode ${NODE}:${CREDENTIAL}` ? undefined : 401);
      if (status !== undefined)
        return void socket.end(`HTTP/1.1 ${status} Refused by the test hub\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      sockets.handleUpgrade(request, socket, head, (ws) => hub.connections.push(new HubConnection(ws, request.headers.authorization)));
    });
    return hub;
  }

  /** The n-th connection (from 0), once the agent has made it. */
  async connection(index: number): Promise<HubConnection> {
    await waitFor(() => this.connections.length > index, { ...WAIT, what: `agent connection #${index}` });
    return this.connections[index] as HubConnection;
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.socket.terminate();
    this.sockets.close();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
