import { CLOSE_CODES, PROTOCOL_VERSION, type ControlPlaneFrame, type EventFrame, type ReportFrame } from '@corral/protocol';
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import type { WebSocket } from 'ws';
import { AgentConnection, type ConnectionEvents } from './agent-connection.js';
import { AgentLink } from './agent-link.js';
import { wentAway } from './agent-failure.js';

const NODE = 'alpha';
const DNS = { search: ['example.com'], servers: ['192.0.2.53'] };
const RUNTIME = { kind: 'runtime', guests: [] };
const EVENT = { type: 'event', event: 'vm-start', vmid: 100, timestamp: '2025-01-01T00:00:00.000Z' };

/** The agent's side of one websocket: the frames the control plane sent on it, and how it was closed. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: ControlPlaneFrame[] = [];
  closed: { code: number; reason: string } | null = null;

  send(text: string): void {
    this.sent.push(JSON.parse(text) as ControlPlaneFrame);
  }

  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
    this.readyState = 3;
    this.emit('close', code, Buffer.from(reason));
  }

  /** A frame of the agent. */
  say(frame: object): void {
    this.emit('message', Buffer.from(JSON.stringify(frame)), false);
  }

  /** The frames sent of one type. */
  of<T extends ControlPlaneFrame['type']>(type: T): Extract<ControlPlaneFrame, { type: T }>[] {
    return this.sent.filter((frame): frame is Extract<ControlPlaneFrame, { type: T }> => frame.type === type);
  }
}

/** Lets the frames said so far be handled and their ack be sent. */
const handled = async () => {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** Node alpha's session `s1`, with what its reports and events became, and its agent's connections as the hub routes them. */
function session(handle: (frame: ReportFrame | EventFrame) => Promise<void> = async () => undefined) {
  const frames: (ReportFrame | EventFrame)[] = [];
  const link = new AgentLink(
    NODE,
    's1',
    { handle: async (_node, _session, frame) => handle(frame).then(() => void frames.push(frame)) },
    pino({ level: 'silent' }),
  );
  const events: ConnectionEvents = {
    hello: (connection) => void link.attach(connection),
    heartbeat: (connection, n) => void link.heartbeat(connection, n),
    frame: (connection, frame) => link.receive(connection, frame),
    closed: (connection) => void link.detach(connection),
  };
  /** A new connection of the session's agent after its hello, welcomed unless told otherwise. */
  const connect = ({ welcome = true } = {}) => {
    const socket = new FakeSocket();
    const connection = new AgentConnection(NODE, socket as unknown as WebSocket, events, '192.0.2.10');
    socket.say({ type: 'hello', protocol: PROTOCOL_VERSION, agentVersion: '0.1.0', node: NODE, session: 's1', capabilities: [] });
    if (welcome) link.welcome(connection, []);
    return { socket, connection };
  };
  return { link, frames, connect };
}

describe('an agent link', () => {
  afterEach(() => jest.useRealTimers());

  it("sends a request once its connection is welcomed, and resolves it with the answer that carries the request's id", async () => {
    const { link, connect } = session();
    const { socket, connection } = connect({ welcome: false });
    const first = link.request('node.dns.get', {}, { timeoutMs: 1000 });
    expect(socket.sent).toEqual([]);
    expect(link.welcome(connection, [])).toBe(true);
    const second = link.request('node.dns.set', DNS, {
      timeoutMs: 1000,
      upid: 'UPID:alpha:00000001:00000002:00000003:srvreload::root@pam:',
      step: '100',
    });
    const [one, two] = socket.of('request');
    expect(socket.sent.map((frame) => frame.type)).toEqual(['welcome', 'request', 'request']);
    expect(two).toEqual({
      type: 'request',
      id: expect.any(String),
      command: 'node.dns.set',
      params: DNS,
      timeoutMs: 1000,
      upid: 'UPID:alpha:00000001:00000002:00000003:srvreload::root@pam:',
      step: '100',
    });
    socket.say({ type: 'result', seq: 1, id: two?.id, result: null });
    socket.say({ type: 'result', seq: 2, id: one?.id, result: DNS });
    await expect(second).resolves.toBeNull();
    await expect(first).resolves.toEqual(DNS);
  });

  it('handles each numbered frame of the session once, in order, and acknowledges up to the highest handled, also after a reconnect', async () => {
    const { frames, connect } = session();
    const first = connect();
    first.socket.say({ type: 'report', seq: 1, payload: RUNTIME });
    first.socket.say({ ...EVENT, seq: 2 });
    await handled();
    expect(frames.map((frame) => frame.seq)).toEqual([1, 2]);
    expect(first.socket.of('ack')).toEqual([{ type: 'ack', upTo: 2 }]);

    // Its ack was lost with the connection: the agent sends it again on the next one.
    first.socket.close(1006, '');
    const second = connect();
    second.socket.say({ ...EVENT, seq: 2 });
    second.socket.say({ ...EVENT, seq: 3 });
    await handled();
    expect(frames.map((frame) => frame.seq)).toEqual([1, 2, 3]);
    expect(second.socket.of('ack')).toEqual([{ type: 'ack', upTo: 3 }]);
  });

  it('closes a connection whose frame it could not handle, unacknowledged, and handles the frame when the agent sends it again', async () => {
    let failing = true;
    const { frames, connect } = session(async () => {
      if (failing) throw new Error('the database is gone');
    });
    const first = connect();
    first.socket.say({ ...EVENT, seq: 1 });
    await handled();
    expect(first.socket.closed).toEqual({ code: 1011, reason: 'the control plane could not handle a frame' });
    expect(first.socket.of('ack')).toEqual([]);

    failing = false;
    const second = connect();
    second.socket.say({ ...EVENT, seq: 1 });
    await handled();
    expect(frames.map((frame) => frame.seq)).toEqual([1]);
    expect(second.socket.of('ack')).toEqual([{ type: 'ack', upTo: 1 }]);
  });

  it('keeps the unanswered requests when a newer connection of the session takes over, closes the older one, and sends them again at the welcome', async () => {
    const { link, connect } = session();
    const first = connect();
    const answer = link.request('node.dns.get', {}, { timeoutMs: 1000 });
    const [request] = first.socket.of('request');
    const second = connect({ welcome: false });
    expect(first.socket.closed).toEqual({ code: CLOSE_CODES.replaced, reason: 'a newer connection of this node took over' });
    // Frames of the older connection are no longer the session's.
    first.socket.say({ type: 'result', seq: 1, id: request?.id, result: { search: [], servers: [] } });
    expect(link.heartbeat(first.connection, 1)).toBe(false);
    expect(link.connection).toBe(second.connection);

    link.welcome(second.connection, []);
    expect(second.socket.of('request')).toEqual([request]);
    second.socket.say({ type: 'result', seq: 1, id: request?.id, result: DNS });
    await expect(answer).resolves.toEqual(DNS);
  });

  it('leaves the requests waiting while the connection is closed, and fails them when the session is dropped or replaced', async () => {
    const { link, connect } = session();
    const { socket, connection } = connect();
    const silent = link.request('node.dns.get', {}, { timeoutMs: 1000 });
    expect(link.drop(wentAway(NODE, 'no heartbeat for 10 s'))).toBe(connection);
    await expect(silent).rejects.toThrow("node 'alpha' went away before it answered node.dns.get (no heartbeat for 10 s)");
    expect(link.connection).toBeNull();
    expect(socket.closed).toBeNull();

    const again = connect();
    const restarted = link.request('node.dns.get', {}, { timeoutMs: 1000 });
    again.socket.close(1006, '');
    expect(link.connection).toBeNull();
    const last = connect();
    link.replaced();
    await expect(restarted).rejects.toMatchObject({
      code: 'NODE_UNAVAILABLE',
      message: "node 'alpha' went away before it answered node.dns.get (its agent restarted)",
    });
    expect(last.socket.closed).toEqual({ code: CLOSE_CODES.replaced, reason: 'a newer connection of this node took over' });
  });

  it("ends a request that stays unanswered at its timeout, after a grace for the agent's kill and the way back", async () => {
    jest.useFakeTimers();
    const { link, connect } = session();
    const { socket } = connect();
    let outcome: unknown = 'pending';
    void link.request('node.dns.get', {}, { timeoutMs: 30_000 }).catch((error: unknown) => (outcome = error));
    await jest.advanceTimersByTimeAsync(34_999);
    expect(outcome).toBe('pending');
    await jest.advanceTimersByTimeAsync(1);
    expect(outcome).toMatchObject({ code: 'NODE_TIMEOUT', message: "node 'alpha' did not answer node.dns.get within 30 s" });
    // A late answer finds nothing to settle, and is acknowledged.
    socket.say({ type: 'result', seq: 1, id: socket.of('request')[0]?.id, result: DNS });
    await jest.advanceTimersByTimeAsync(0);
    expect(socket.of('ack')).toEqual([{ type: 'ack', upTo: 1 }]);
  });

  it('counts the numbered heartbeats of a welcomed connection for the HA lease', () => {
    const { link, connect } = session();
    const { connection } = connect({ welcome: false });
    expect(link.heartbeat(connection, 3)).toBe(true);
    expect(link.lease.heard).toBe(0);
    link.welcome(connection, []);
    link.heartbeat(connection, 5);
    link.heartbeat(connection, 4);
    link.heartbeat(connection, undefined);
    expect(link.lease).toEqual({ heard: 5, granted: 0 });
  });
});
