// Events end to end: real guest
// operations on a `sim` agent at speed 0 make events; a webhook receiver and two stream clients
// (websocket and server-sent events of GET /cluster/events) on a worker thread
// (event-observer.mjs) note when each arrives. Phases: latency (one operation at a time), load
// (every guest at once: the rate sustained), backlog (the receiver answers 503 while the events
// are made, then 200: the time to drain it), replay (two more streams read the whole run from its
// start). GET /version against a bare Fastify route in the same run gives the machine's speed. Usage:
//   node tools/bench/events-bench.mjs [--guests 50] [--latency-events 600] [--load-events 2000]
//     [--backlog 1000] [--max-backoff <s>]
// (or BENCH_GUESTS, BENCH_LATENCY_EVENTS, BENCH_LOAD_EVENTS, BENCH_BACKLOG, BENCH_MAX_BACKOFF).
// --max-backoff sets the control plane's CORRAL_WEBHOOK_MAX_BACKOFF_S; without it, its default.
// Exits 1 when an event is missing, out of order or wrongly signed, or a request or task failed;
// never on a timing.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import {
  AGENT_MAIN,
  AS_ROOT,
  fail,
  machineSpeed,
  MAIN,
  median,
  percentile,
  positiveInt,
  progress,
  rootClient,
  startBareFastify,
  startControlPlane,
  startAgent,
  until,
} from './bench-support.mjs';

const NODE = 'bench';
const FIRST_VMID = 1000;
/** How long the clients may take to get a phase's events once they are all recorded. */
const ARRIVAL_PATIENCE_MS = 120_000;
/** Polls `condition` every 50 ms until it is true, for at most ARRIVAL_PATIENCE_MS. */
const waitUntil = (what, condition) => until(condition, what, { patienceMs: ARRIVAL_PATIENCE_MS, everyMs: 50 });

const { values: flags } = parseArgs({
  options: {
    guests: { type: 'string' },
    'latency-events': { type: 'string' },
    'load-events': { type: 'string' },
    backlog: { type: 'string' },
    'max-backoff': { type: 'string' },
  },
});
const guests = positiveInt('guests', flags.guests ?? process.env.BENCH_GUESTS ?? '50');
const latencyEvents = positiveInt('latency-events', flags['latency-events'] ?? process.env.BENCH_LATENCY_EVENTS ?? '600');
const loadEvents = positiveInt('load-events', flags['load-events'] ?? process.env.BENCH_LOAD_EVENTS ?? '2000');
const backlog = positiveInt('backlog', flags.backlog ?? process.env.BENCH_BACKLOG ?? '1000');
const maxBackoff = flags['max-backoff'] ?? process.env.BENCH_MAX_BACKOFF;
if (maxBackoff !== undefined) positiveInt('max-backoff', maxBackoff);

for (const built of [MAIN, AGENT_MAIN])
  if (!existsSync(built)) fail(`${built} is missing: run NX_DAEMON=false npx nx run-many -t build -p control-plane agent first`);

const vmids = Array.from({ length: guests }, (_, i) => FIRST_VMID + i);
const running = new Set();
const failures = [];
const dataDir = await mkdtemp(join(os.tmpdir(), 'corral-bench-'));
let controlPlane = null;
let client = null;
let agent = null;
let bare = null;
let observer = null;
try {
  // mkdtemp makes the directory 0700; the embedded PostgreSQL runs as user postgres and must traverse it.
  await chmod(dataDir, 0o755);
  // No local agent: the sim agent joined below keeps its simulated host in this directory.
  controlPlane = await startControlPlane(dataDir, {
    CORRAL_LOCAL_AGENT: '0',
    ...(maxBackoff !== undefined ? { CORRAL_WEBHOOK_MAX_BACKOFF_S: maxBackoff } : {}),
  });
  const api = `https://127.0.0.1:${controlPlane.port}/api2/json`;
  client = rootClient(api, guests + 4);
  agent = await startAgent(client, { port: controlPlane.port, dir: dataDir, node: NODE });
  bare = await startBareFastify(dataDir, (app) => app.get('/hello', async () => ({ hello: 'world' })));
  const speed = await machineSpeed(`${bare.origin}/hello`, `${api}/version`, failures);

  const secret = randomBytes(32);
  observer = await startObserver(secret);
  await client.data('/cluster/notifications/endpoints/webhook', 'POST', {
    name: 'bench',
    url: `http://127.0.0.1:${observer.port}/hook`,
    'allow-local': '1',
    secret: `name=signing,value=${secret.toString('base64')}`,
  });
  // A matcher without rules selects every event (mode all).
  await client.data('/cluster/notifications/matchers', 'POST', { name: 'bench', target: 'bench' });
  await observer.ask({ type: 'follow', url: `${api}/cluster/events`, authorization: AS_ROOT }, 'following');

  progress(`creating ${guests} guests`);
  const created = await phase('create', guests, () =>
    Promise.all(vmids.map((vmid) => task('POST', `/nodes/${NODE}/qemu`, { vmid: String(vmid), name: `bench${vmid}`, memory: '64' }))),
  );

  progress(`latency: ${latencyEvents} starts and stops, one at a time`);
  const latency = await phase('latency', latencyEvents, async () => {
    for (let i = 0; i < latencyEvents; i++) await toggle(vmids[i % guests]);
  });
  // Every guest stopped again, outside the measurement.
  await Promise.all([...running].map((vmid) => toggle(vmid)));

  const perGuest = (total) => Math.max(2, 2 * Math.round(total / guests / 2));
  progress(`load: ${perGuest(loadEvents) * guests} starts and stops, ${guests} guests at once`);
  const load = await phase('load', perGuest(loadEvents) * guests, () => cycles(perGuest(loadEvents)));

  progress(`backlog: the receiver answers 503 while ${perGuest(backlog) * guests} events are made and dispatched`);
  await observer.ask({ type: 'answer', status: 503 }, 'answering');
  const down = { at: Date.now() };
  const queued = await phase(
    'backlog',
    perGuest(backlog) * guests,
    async () => {
      await cycles(perGuest(backlog));
      down.produced = Date.now();
    },
    async (expected) => {
      await waitUntil(
        'every backlog event dispatched',
        async () =>
          (await client.data('/cluster/notifications/endpoints/webhook/bench/deliveries?limit=1'))[0]?.['event-seq'] ===
          expected.at(-1).seq,
      );
      down.back = Date.now();
      await observer.ask({ type: 'answer', status: 200 }, 'answering');
    },
  );

  progress('replay: a websocket and server-sent events resume from before the first guest event');
  const since = created.expected[0].seq - 1;
  const all = await recorded(since);
  const replayed = await observer.ask(
    { type: 'replay', url: `${api}/cluster/events`, authorization: AS_ROOT, since, count: all.length },
    'replayed',
  );
  checkStream('replay, websocket', all, replayed.websocket);
  checkStream('replay, server-sent events', all, replayed.sse);

  await Promise.all(vmids.map((vmid) => task('DELETE', `/nodes/${NODE}/qemu/${vmid}`)));
  report({ speed, created, latency, load, queued, down, replayed });
} catch (error) {
  failures.push(error.stack ?? String(error));
} finally {
  if (observer) await observer.close();
  if (agent) await agent.stop();
  if (controlPlane) await controlPlane.stop();
  if (bare) await bare.app.close();
  client?.close();
  await rm(dataDir, { recursive: true, force: true });
}
for (const failure of failures.slice(0, 20)) progress(`FAILED: ${failure}`);
if (failures.length > 20) progress(`... and ${failures.length - 20} more failures`);
process.exit(failures.length > 0 ? 1 : 0);

/**
 * One phase: `produce` makes `count` events of the bench's guests, `afterProduced(expected)` runs
 * once they are all recorded; then waits until every client has them and checks them. Resolves
 * with the notes of each client about this phase's events, and when the phase began.
 */
async function phase(name, count, produce, afterProduced = async () => {}) {
  const before = await newestSeq();
  const started = Date.now();
  await produce();
  const expected = await eventsAfter(before, count);
  await afterProduced(expected);
  await waitUntil(`${name}: every event at the receiver and the stream clients`, async () => {
    const counts = await observer.ask({ type: 'count', after: before }, 'count');
    return counts.webhook >= count && counts.websocket >= count && counts.sse >= count;
  });
  const arrivals = await observer.ask({ type: 'arrivals' }, 'arrivals');
  for (const problem of arrivals.problems) failures.push(problem);
  const ids = new Set(expected.map((event) => event.id));
  const mine = (notes) => notes.filter((note) => ids.has(note.id));
  const result = {
    name,
    started,
    expected,
    webhook: mine(arrivals.webhook),
    refused: mine(arrivals.refused),
    websocket: mine(arrivals.websocket),
    sse: mine(arrivals.sse),
  };
  checkKeyOrder(name, expected, result.webhook);
  checkStream(`${name}, websocket`, expected, result.websocket);
  checkStream(`${name}, server-sent events`, expected, result.sse);
  return result;
}

/** Every guest at once, each `perGuest` operations in turn: start, stop, start, ... (an even number: each ends stopped). */
function cycles(perGuest) {
  return Promise.all(
    vmids.map(async (vmid) => {
      for (let i = 0; i < perGuest; i++) await toggle(vmid);
    }),
  );
}

/** Starts a stopped guest, stops a running one: one event each. */
async function toggle(vmid) {
  const action = running.has(vmid) ? 'stop' : 'start';
  await task('POST', `/nodes/${NODE}/qemu/${vmid}/status/${action}`);
  if (action === 'start') running.add(vmid);
  else running.delete(vmid);
}

/** An API call that starts a task, and the task to its end; anything but OK is a failure. */
async function task(method, path, form) {
  const upid = await client.data(path, method, form);
  const exit = await client.taskEnd(NODE, upid);
  if (exit !== 'OK') failures.push(`${method} ${path}: the task ended ${exit}`);
}

async function newestSeq() {
  const newest = await client.data('/cluster/events?limit=1');
  return newest.at(-1)?.seq ?? 0;
}

/** Every event after seq `after`, read from the table (the JSON form of the stream). */
async function recorded(after) {
  const events = [];
  for (let cursor = after; ;) {
    const page = await client.data(`/cluster/events?since=${cursor}&limit=1000`);
    events.push(...page);
    if (page.length < 1000) return events;
    cursor = page.at(-1).seq;
  }
}

/** The `count` events of the bench's guests after seq `after`, once they are all recorded. */
async function eventsAfter(after, count) {
  let events = [];
  await waitUntil(`${count} events recorded after seq ${after}`, async () => {
    events = (await recorded(after)).filter((event) => vmids.includes(event.vmid));
    return events.length >= count;
  });
  if (events.length !== count) failures.push(`${events.length} events recorded after seq ${after}, ${count} expected`);
  return events;
}

/** The webhook's promise (docs/webhooks.md "Order"): every event delivered, each guest's in the order they happened. */
function checkKeyOrder(name, expected, notes) {
  const delivered = new Map();
  for (const note of notes) if (!delivered.has(note.id)) delivered.set(note.id, note);
  const missing = expected.filter((event) => !delivered.has(event.id));
  if (missing.length > 0) failures.push(`${name}, webhook: ${missing.length} events never delivered, the first seq ${missing[0].seq}`);
  const last = new Map();
  for (const note of delivered.values()) {
    const key = note.vmid ?? note.node;
    if ((last.get(key) ?? -1) > note.seq) failures.push(`${name}, webhook: seq ${note.seq} of ${key} arrived after seq ${last.get(key)}`);
    last.set(key, Math.max(last.get(key) ?? -1, note.seq));
  }
  const wrong = expected.filter((event) => delivered.has(event.id) && !sameEvent(event, delivered.get(event.id)));
  if (wrong.length > 0)
    failures.push(`${name}, webhook: ${wrong.length} bodies differ from the recorded event, the first seq ${wrong[0].seq}`);
}

/** The stream's promise (docs/events.md): every event once, in seq order. */
function checkStream(name, expected, notes) {
  const got = notes.map((note) => note.seq).join(',');
  if (got !== expected.map((event) => event.seq).join(',')) {
    failures.push(
      `${name}: ${notes.length} events, ${expected.length} expected, or not in seq order (first differences: ${JSON.stringify(firstDifference(expected, notes))})`,
    );
  }
  const wrong = expected.filter((event, i) => notes[i] !== undefined && !sameEvent(event, notes[i]));
  if (wrong.length > 0) failures.push(`${name}: ${wrong.length} events differ from the recorded ones, the first seq ${wrong[0].seq}`);
}

function sameEvent(event, note) {
  return (
    note.id === event.id &&
    note.event === event.event &&
    note.vmid === event.vmid &&
    note.node === event.node &&
    note.timestamp === event.timestamp
  );
}

function firstDifference(expected, notes) {
  const i = expected.findIndex((event, index) => notes[index]?.seq !== event.seq);
  return { index: i, expected: expected[i]?.seq, got: notes[i]?.seq };
}

/** The first delivery of each event, as milliseconds from its `timestamp` to its arrival. */
function latencies(notes) {
  const first = new Map();
  for (const note of notes) if (!first.has(note.id)) first.set(note.id, note.arrived - Date.parse(note.timestamp));
  return [...first.values()];
}

/** Events per second from the phase's start to the last arrival. */
function rate(result, notes) {
  return notes.length / ((Math.max(...notes.map((note) => note.arrived)) - result.started) / 1000);
}

/**
 * The worker thread with the receiver and the stream clients, once its receiver listens on `port`;
 * `ask` posts a message and resolves with the answer of type `reply`.
 */
async function startObserver(secret) {
  const worker = new Worker(new URL('./event-observer.mjs', import.meta.url), { workerData: { secret } });
  const crashed = new Promise((_, reject) => worker.once('error', reject));
  crashed.catch(() => {});
  const next = (type) =>
    Promise.race([
      new Promise((resolve) => {
        const listener = (received) => {
          if (received.type !== type) return;
          worker.off('message', listener);
          resolve(received);
        };
        worker.on('message', listener);
      }),
      crashed,
    ]);
  const ask = (message, reply) => {
    const answer = next(reply);
    worker.postMessage(message);
    return answer;
  };
  const { port } = await next('listening');
  return {
    port,
    ask,
    async close() {
      await ask({ type: 'close' }, 'closed').catch(() => {});
      await worker.terminate();
    },
  };
}

function report({ speed, created, latency, load, queued, down, replayed }) {
  const ms = (values) => `${median(values).toFixed(0)} / ${percentile(values, 0.99).toFixed(0)}`;
  const clients = ['webhook', 'websocket', 'sse'];
  const seconds = (ms) => (ms / 1000).toFixed(1);
  /** Events per second from the phase's start to the last event's timestamp: how fast they were made. */
  const made = (result) =>
    result.expected.length / ((Math.max(...result.expected.map((event) => Date.parse(event.timestamp))) - result.started) / 1000);
  const replayRate = (notes) => notes.length / ((Math.max(...notes.map((note) => note.arrived)) - replayed.opened) / 1000);
  const delivered = queued.webhook.map((note) => note.arrived);
  const [first, last] = [Math.min(...delivered), Math.max(...delivered)];
  // When each guest's queue got its first delivery after the receiver came back: its head's retry.
  const heads = new Map();
  for (const note of queued.webhook) heads.set(note.vmid, Math.min(heads.get(note.vmid) ?? Infinity, note.arrived - down.back));
  const drainRate = queued.webhook.length / ((last - down.back) / 1000);
  const lines = [
    '',
    `machine speed: bare Fastify ${speed.bareRate.toFixed(0)} req/s, GET /version ${speed.versionRate.toFixed(0)} req/s (ratio ${(speed.versionRate / speed.bareRate).toFixed(2)})`,
    '',
    "latency in ms from the event's timestamp to its arrival, median / p99:",
  ];
  for (const result of [created, latency, load, queued]) {
    lines.push(
      `  ${result.name.padEnd(8)} ${String(result.expected.length).padStart(5)} events made at ${made(result).toFixed(0).padStart(3)}/s: ${clients.map((c) => `${c} ${ms(latencies(result[c]))}`).join(', ')}`,
    );
  }
  lines.push(
    '',
    `load: arrived ${clients.map((c) => `${c} ${rate(load, load[c]).toFixed(0)}/s`).join(', ')} (from the first operation to the last arrival)`,
    `replay of ${replayed.websocket.length} events from the start: websocket ${replayRate(replayed.websocket).toFixed(0)}/s, server-sent events ${replayRate(replayed.sse).toFixed(0)}/s`,
    `backlog: ${queued.expected.length} events made in ${seconds(down.produced - down.at)} s; the receiver answered 503 for ${seconds(down.back - down.at)} s, to ${queued.refused.length} attempts`,
    `  after it came back: the first delivery in ${seconds(first - down.back)} s, each guest's first (its queue's retry) in ${seconds(median([...heads.values()]))} s median, ${seconds(Math.max(...heads.values()))} s at most;`,
    `  all ${queued.webhook.length} in ${seconds(last - down.back)} s: ${drainRate.toFixed(0)} events/s (${(queued.webhook.length / ((last - first) / 1000)).toFixed(0)}/s from the first delivery to the last)`,
  );
  const cpus = os.cpus();
  const row = (...cells) =>
    `| ${new Date().toISOString().slice(0, 10)} | ${cpus[0].model.trim()}, ${cpus.length} cores, Node ${process.version} | ${cells.join(' | ')} |`;
  lines.push(
    '',
    'markdown rows (latency; throughput; backlog):',
    row(
      speed.bareRate.toFixed(0),
      speed.versionRate.toFixed(0),
      (speed.versionRate / speed.bareRate).toFixed(2),
      ...clients.map((c) => ms(latencies(latency[c]))),
      ...clients.map((c) => ms(latencies(load[c]))),
    ),
    row(
      made(load).toFixed(0),
      ...clients.map((c) => rate(load, load[c]).toFixed(0)),
      replayRate(replayed.websocket).toFixed(0),
      replayRate(replayed.sse).toFixed(0),
    ),
    row(
      maxBackoff ?? 'default',
      queued.expected.length,
      seconds(down.back - down.at),
      queued.refused.length,
      seconds(first - down.back),
      seconds(Math.max(...heads.values())),
      seconds(last - down.back),
      drainRate.toFixed(0),
      failures.length,
    ),
    '',
  );
  process.stdout.write(lines.join('\n'));
}
