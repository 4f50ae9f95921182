// Simulated agents at the protocol level, by the thousand in one process, for the cluster benchmark
// (docs/benchmarks.md "A thousand agents"): each joins through the API with its own join token,
// dials the control plane over a real websocket pinned to its certificate, says hello, heartbeats
// as the real agent does (numbered, every `welcome.heartbeatMs`), reports an inventory at every
// heartbeat and its guests' run state every 10 s, keeps its numbered frames until they are
// acknowledged and sends them again after a reconnect, and moves to the next control-plane URL at
// once when its connection ends. It answers the commands the benchmark sends: `guest.create`
// (after `createMs`, reported as making meanwhile; the guest is then listed stopped), `guest.destroy`,
// `storage.status`, `storage.activate` and `storage.watch` (the watched storages' space then goes
// with each inventory); any other command is answered `unknown-command`.
// Frames are read with JSON.parse only: the swarm shares the machine with the replicas it measures.
import { connectPinned } from '@corral/pinned-tls';
import { AGENT_WEBSOCKET_PATH, PROTOCOL_VERSION } from '@corral/protocol';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

const FIGURES_EVERY_MS = 10_000;
/** After every URL failed since the last welcome, the agent waits this long before it tries again. */
const RETRY_MS = 1000;
const GIB = 2 ** 30;
const STORAGE = { active: true, total: 1024 * GIB, used: 100 * GIB, avail: 924 * GIB };

/** One simulated agent: `urls` are the control plane's replicas, the first one dialled first. */
export class SwarmAgent {
  session = randomUUID();
  /** When the last welcome came (ms since the epoch). */
  welcomedAt = 0;
  /** The replica URL of the current connection. */
  url = '';
  online = false;
  socket = null;
  stopped = false;
  seq = 0;
  lastAck = 0;
  /** Numbered frames not acknowledged yet, in order. */
  outbox = [];
  beats = 0;
  timers = [];
  guests = new Map();
  /** The storages of the last `storage.watch`, reported with each inventory. */
  watched = [];
  /** Requests being worked on (a create waiting out `createMs`). */
  running = new Set();
  /** The vmids whose create runs now, reported as `making`. */
  making = new Set();
  /** Every request id of this session: a request sent again after a reconnect is not run twice (its answer is in the outbox or on its way). */
  seen = new Set();
  urls;
  next = 0;
  failedSinceWelcome = 0;

  constructor({ node, credential, fingerprint, urls, createMs = 0 }) {
    this.node = node;
    this.credential = credential;
    this.fingerprint = fingerprint;
    this.urls = [...urls];
    this.createMs = createMs;
  }

  start() {
    this.stopped = false;
    this.dial();
  }

  /** Ends the connection as a killed agent's does (the kernel closes its socket), and never dials again. */
  kill() {
    this.stopped = true;
    this.quiet();
    this.socket?.terminate();
    this.socket = null;
  }

  dial() {
    if (this.stopped) return;
    this.url = this.urls[this.next % this.urls.length];
    const url = new URL(this.url);
    // Node's http client takes the asynchronous form createConnection(options, callback) when it returns nothing.
    const createConnection = (_options, callback) => {
      connectPinned(url, this.fingerprint, { timeoutMs: 10_000 }).then(
        (socket) => callback(null, socket),
        (error) => callback(error),
      );
    };
    const socket = new WebSocket(`wss://${url.host}${AGENT_WEBSOCKET_PATH}`, {
      headers: { authorization: `CorralNode ${this.node}:${this.credential}` },
      createConnection,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    this.socket = socket;
    socket.on('open', () => this.hello());
    socket.on('message', (data) => this.receive(JSON.parse(data.toString())));
    socket.on('error', () => undefined);
    socket.on('close', () => this.closed(socket));
  }

  hello() {
    const requests = [...this.running, ...this.outbox.filter((frame) => frame.id !== undefined).map((frame) => frame.id)];
    this.write({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      agentVersion: '0.0.0-swarm',
      node: this.node,
      session: this.session,
      capabilities: ['driver:sim'],
      ...(this.lastAck > 0 ? { lastAck: this.lastAck } : {}),
      requests,
    });
  }

  closed(socket) {
    if (socket !== this.socket) return;
    const wasOnline = this.online;
    this.quiet();
    this.socket = null;
    if (this.stopped) return;
    if (!wasOnline) this.failedSinceWelcome += 1;
    this.next += 1;
    // Every URL was tried since the last welcome: wait before the next round, as the real agent's backoff does.
    const delay = this.failedSinceWelcome >= this.urls.length ? RETRY_MS : 0;
    if (delay > 0) this.failedSinceWelcome = 0;
    this.timers.push(setTimeout(() => this.dial(), delay));
  }

  quiet() {
    this.online = false;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  receive(frame) {
    switch (frame.type) {
      case 'welcome':
        return this.welcome(frame);
      case 'ack':
        this.lastAck = Math.max(this.lastAck, frame.upTo);
        this.outbox = this.outbox.filter((kept) => kept.seq > frame.upTo);
        return;
      case 'request':
        return void this.request(frame);
      default:
        // lease and cancel: the swarm holds no HA guest and runs nothing long enough to cancel.
        return;
    }
  }

  welcome(frame) {
    this.online = true;
    this.welcomedAt = Date.now();
    this.failedSinceWelcome = 0;
    for (const url of frame.replicas ?? []) if (!this.urls.includes(url)) this.urls.push(url);
    this.beat();
    for (const kept of this.outbox) this.write(kept);
    this.inventory();
    this.runtime();
    this.timers.push(
      setInterval(() => {
        this.beat();
        this.inventory();
      }, frame.heartbeatMs),
      setInterval(() => this.runtime(), FIGURES_EVERY_MS),
    );
  }

  beat() {
    this.write({ type: 'heartbeat', n: (this.beats += 1) });
  }

  inventory() {
    this.numbered({
      type: 'report',
      payload: {
        kind: 'inventory',
        cpu: Math.round(Math.random() * 1000) / 10_000,
        maxcpu: 64,
        mem: 200 * GIB,
        maxmem: 512 * GIB,
        uptime: Math.floor(process.uptime()) + 86_400,
        disk: 20 * GIB,
        maxdisk: 100 * GIB,
        os: 'Debian GNU/Linux 13 (trixie)',
        kernel: '6.12.38+deb13-amd64',
        ...(this.watched.length > 0 ? { storages: this.watched.map(({ storage }) => ({ storage, ...STORAGE })) } : {}),
      },
    });
  }

  runtime() {
    const guests = [...this.guests.values()];
    this.numbered({ type: 'report', payload: { kind: 'runtime', guests, making: [...this.making] } });
  }

  async request(frame) {
    if (this.seen.has(frame.id)) return;
    this.seen.add(frame.id);
    this.running.add(frame.id);
    try {
      const answer = await this.answer(frame);
      this.numbered({ ...answer, id: frame.id });
    } finally {
      this.running.delete(frame.id);
    }
    if (frame.command === 'guest.create' || frame.command === 'guest.destroy') this.runtime();
  }

  async answer({ command, params }) {
    switch (command) {
      case 'guest.create': {
        const { vmid, type } = params.guest;
        this.making.add(vmid);
        if (this.createMs > 0) await new Promise((resolve) => setTimeout(resolve, this.createMs));
        this.making.delete(vmid);
        this.guests.set(vmid, { vmid, type, status: 'stopped', uptime: 0, cpu: 0, mem: 0 });
        return { type: 'result', result: null };
      }
      case 'guest.destroy':
        this.guests.delete(params.guest.vmid);
        return { type: 'result', result: null };
      case 'storage.status':
        return { type: 'result', result: STORAGE };
      case 'storage.activate':
        return { type: 'result', result: { active: true } };
      case 'storage.watch':
        this.watched = params.storages;
        return { type: 'result', result: null };
      default:
        return { type: 'failure', code: 'unknown-command', message: `the benchmark's simulated agent does not run ${command}` };
    }
  }

  /** A frame kept until acknowledged; a report replaces an unacknowledged one of its kind. */
  numbered(frame) {
    const kept = { ...frame, seq: (this.seq += 1) };
    if (frame.type === 'report')
      this.outbox = this.outbox.filter((old) => old.type !== 'report' || old.payload.kind !== frame.payload.kind);
    this.outbox.push(kept);
    if (this.online) this.write(kept);
  }

  write(frame) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }
}

/**
 * Joins `count` nodes named `<prefix><n>` through `client` (bench-support's rootClient), a few at a
 * time, and returns their agents (not started). Agent n dials `urls[n % urls.length]` first, then
 * the others, so that the agents spread evenly over the replicas.
 */
export async function joinSwarm(client, { prefix, from = 1, count, urls, createMs, parallel = 16 }) {
  const agents = new Array(count);
  let index = 0;
  const worker = async () => {
    while (index < count) {
      const mine = index++;
      const node = `${prefix}${from + mine}`;
      const { token, fingerprint } = await client.data('/cluster/join-tokens', 'POST', { node });
      const { credential } = await client.data('/cluster/join', 'POST', { token, node });
      const first = (from + mine) % urls.length;
      agents[mine] = new SwarmAgent({ node, credential, fingerprint, urls: [...urls.slice(first), ...urls.slice(0, first)], createMs });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return agents;
}
