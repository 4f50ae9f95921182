import {
  parseControlPlaneFrame,
  PROTOCOL_VERSION,
  type AgentFrame,
  type ControlPlaneFrame,
  type FailureCode,
  type RequestFrame,
} from '@corral/protocol';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

/** What the fake answers a request with: a result, or a failure code and message. */
export type FakeAnswer = { readonly result: unknown } | { readonly failure: FailureCode; readonly message: string };

export interface FakeAgentOptions {
  /** `wss://127.0.0.1:<port>/agent/v1` */
  readonly url: string;
  /** The control plane's certificate (PEM), trusted as is. */
  readonly ca: string;
  readonly node: string;
  readonly credential: string;
  /** Answers requests; an unknown command by default. */
  readonly answer?: (request: RequestFrame) => FakeAnswer | Promise<FakeAnswer>;
  /** What the hello says; the real agent's values by default. */
  readonly hello?: Partial<{ protocol: number; node: string; session: string; agentVersion: string }>;
  /** Numbers its heartbeats as the real agent does, so that the control plane grants it HA leases; unnumbered by default. */
  readonly numberedHeartbeats?: boolean;
}

/**
 * A scripted agent for the hub's tests: a real websocket and the real protocol frames, but
 * answers the test chooses and heartbeats the test can stop. The real agent (apps/agent) is tested
 * against a real control plane in the e2e suite.
 */
export class FakeAgent {
  readonly received: ControlPlaneFrame[] = [];
  closeCode: number | null = null;
  closeReason = '';
  private seq = 0;
  private heartbeat: NodeJS.Timeout | null = null;

  private constructor(
    private readonly socket: WebSocket,
    private readonly options: FakeAgentOptions,
  ) {
    socket.on('message', (data) => void this.receive(data.toString()));
    socket.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
      this.stopHeartbeats();
    });
  }

  /** Connects; resolves once the upgrade succeeded (before any welcome), rejects with the HTTP status when it is refused. */
  static connect(options: FakeAgentOptions, authorization = `CorralNode ${options.node}:${options.credential}`): Promise<FakeAgent> {
    const socket = new WebSocket(options.url, { ca: options.ca, headers: { authorization } });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new FakeAgent(socket, options)));
      socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
      socket.once('error', reject);
    });
  }

  /** Sends hello and resolves with the welcome (or rejects if the connection closes first). */
  async hello(lastAck?: number): Promise<Extract<ControlPlaneFrame, { type: 'welcome' }>> {
    this.send({
      type: 'hello',
      protocol: this.options.hello?.protocol ?? PROTOCOL_VERSION,
      agentVersion: this.options.hello?.agentVersion ?? '0.0.0-fake',
      node: this.options.hello?.node ?? this.options.node,
      session: this.options.hello?.session ?? SESSION,
      capabilities: [],
      ...(lastAck !== undefined ? { lastAck } : {}),
    });
    const welcome = await this.next('welcome');
    let beats = 0;
    this.heartbeat = setInterval(
      () => this.send(this.options.numberedHeartbeats === true ? { type: 'heartbeat', n: (beats += 1) } : { type: 'heartbeat' }),
      welcome.heartbeatMs,
    );
    // A test that fails before it closes its agent must not keep Jest running.
    this.heartbeat.unref();
    return welcome;
  }

  stopHeartbeats(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Sends a frame; numbered frames get the next `seq` unless they carry one. */
  send(frame: AgentFrame | Record<string, unknown>): number {
    const numbered = 'type' in frame && ['result', 'failure', 'log', 'report', 'event'].includes(String(frame.type));
    const seq = numbered ? ((frame as { seq?: number }).seq ?? ++this.seq) : 0;
    this.socket.send(JSON.stringify(numbered ? { ...frame, seq } : frame));
    return seq;
  }

  /** The next frame of a type, waiting for it (frames already received count). */
  async next<T extends ControlPlaneFrame['type']>(type: T, timeoutMs = 10_000): Promise<Extract<ControlPlaneFrame, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.received.findIndex((frame) => frame.type === type);
      if (index >= 0) return this.received.splice(index, 1)[0] as Extract<ControlPlaneFrame, { type: T }>;
      if (this.closeCode !== null) throw new Error(`closed (${this.closeCode} ${this.closeReason}) before a ${type} frame`);
      if (Date.now() > deadline) throw new Error(`no ${type} frame within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Resolves with the close code once the control plane closes the connection. */
  async closed(timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null) {
      if (Date.now() > deadline) throw new Error(`not closed within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.closeCode;
  }

  close(): void {
    this.stopHeartbeats();
    this.socket.close(1000);
  }

  private async receive(text: string): Promise<void> {
    const parsed = parseControlPlaneFrame(JSON.parse(text));
    if (!parsed.ok) throw new Error(`the control plane sent an invalid frame: ${parsed.error}`);
    const frame = parsed.frame;
    this.received.push(frame);
    if (frame.type !== 'request' || !this.options.answer) return;
    const answer = await this.options.answer(frame);
    this.send(
      'result' in answer
        ? { type: 'result', id: frame.id, result: answer.result }
        : { type: 'failure', id: frame.id, code: answer.failure, message: answer.message },
    );
  }
}

/** One session per test process, as one agent process has one. */
const SESSION = randomUUID();
