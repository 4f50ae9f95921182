// Several control-plane replicas (docs/benchmarks.md "Requests through another replica"): two
// replicas on one PostgreSQL, a sim agent held by the first, and the same requests for its node sent
// to the replica holding it (direct) and to the other one (forwarded there), against a bare Fastify
// HTTPS route with the same certificate, measured alternately in the same run.
// Usage: DATABASE_URL=postgres://... node tools/bench/cluster-bench.mjs [--duration <s>] [--connections <n>] [--rounds <n>]
// (or BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS). DATABASE_URL names a server where the user
// may create databases: the benchmark makes one of its own and drops it. Exits 1 when any request
// failed or was not 2xx.
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  AGENT_MAIN,
  AS_ROOT,
  fail,
  MAIN,
  median,
  progress,
  rootClient,
  startAgent,
  startBareFastify,
  startControlPlane,
  loadOptions,
  machineName,
  textTable,
} from './bench-support.mjs';

const WARMUP_S = 2;
const NODE = 'bench1';
const VMID = 100;

const { duration, connections, rounds } = loadOptions({ duration: 10, connections: 10, rounds: 3 });
const serverUrl = process.env.DATABASE_URL;

if (!existsSync(MAIN) || !existsSync(AGENT_MAIN)) fail('the control plane or the agent is not built: run npx nx run-many -t build first');
if (!serverUrl) fail('DATABASE_URL must name a PostgreSQL server where the user may create databases: replicas share one');

const dir = await mkdtemp(join(os.tmpdir(), 'corral-cluster-bench-'));
const database = `corral_bench_${randomBytes(6).toString('hex')}`;
const admin = new pg.Client({ connectionString: serverUrl });
const replicas = [];
let agent = null;
let bare = null;
let client = null;
let failed = false;
try {
  // The embedded PostgreSQL is not used, but the data directories must be traversable as for any replica.
  await chmod(dir, 0o755);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const secret = randomBytes(32).toString('hex');
  for (const index of [1, 2]) {
    const port = await freePort();
    const dataDir = join(dir, `replica${index}`);
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
    const certificate =
      index === 1 ? {} : { CORRAL_TLS_CERT: join(dir, 'replica1/tls/corral.crt'), CORRAL_TLS_KEY: join(dir, 'replica1/tls/corral.key') };
    progress(`starting replica ${index} on port ${port}`);
    replicas.push(
      await startControlPlane(dataDir, {
        DATABASE_URL: url.toString(),
        CORRAL_PORT: String(port),
        CORRAL_REPLICA_URL: `https://127.0.0.1:${port}`,
        CORRAL_CLUSTER_SECRET: secret,
        CORRAL_LOCAL_AGENT: '0',
        ...certificate,
      }),
    );
  }
  const [holder, other] = replicas;
  client = rootClient(`https://127.0.0.1:${holder.port}/api2/json`, 4);
  agent = await startAgent(client, { port: holder.port, dir, node: NODE });
  const created = await client.data(`/nodes/${NODE}/qemu`, 'POST', { vmid: String(VMID), name: 'bench', memory: '512' });
  if ((await client.taskEnd(NODE, created)) !== 'OK') fail('could not create the benchmark VM');
  bare = await startBareFastify(join(dir, 'replica1'), (app) => app.get('/hello', async () => ({ hello: 'world' })));

  const through = (replica) => `https://127.0.0.1:${replica.port}/api2/json`;
  const endpoints = [
    { name: `GET config of VM ${VMID}`, path: `/nodes/${NODE}/qemu/${VMID}/config` },
    { name: `GET status/current of VM ${VMID}`, path: `/nodes/${NODE}/qemu/${VMID}/status/current` },
    {
      name: `POST config of VM ${VMID} (a task)`,
      path: `/nodes/${NODE}/qemu/${VMID}/config`,
      method: 'POST',
      body: 'description=bench',
    },
  ];
  const targets = [
    { name: 'bare Fastify GET /hello', url: `${bare.origin}/hello` },
    ...endpoints.flatMap((endpoint) =>
      [
        ['direct', holder],
        ['forwarded', other],
      ].map(([how, replica]) => ({
        name: `${endpoint.name}, ${how}`,
        endpoint: endpoint.name,
        how,
        url: `${through(replica)}${endpoint.path}`,
        method: endpoint.method ?? 'GET',
        body: endpoint.body,
        headers: { authorization: AS_ROOT, ...(endpoint.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      })),
    ),
  ];
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      progress(`round ${round}/${rounds}, ${target.name}: warming up ${WARMUP_S} s, then ${duration} s with ${connections} connections`);
      await load(target, WARMUP_S);
      runs.push({ round, target, result: await load(target, duration) });
    }
  }
  report(endpoints, runs);
  failed = runs.some(({ result }) => result.requests.total === 0 || result.non2xx > 0 || result.errors > 0);
  if (failed) progress('FAILED: some requests errored or were not 2xx (or none completed); the figures above are not a result');
} finally {
  client?.close();
  if (agent) await agent.stop();
  for (const replica of replicas) await replica.stop();
  if (bare) await bare.app.close();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
  await admin.end().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

// A worker thread for the client, as in the other benchmarks; autocannon does not verify certificates.
function load(target, seconds) {
  return autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    body: target.body,
    headers: target.headers,
    duration: seconds,
    connections,
    pipelining: 1,
    workers: 1,
  });
}

/** A TCP port free on the loopback now: a replica must know its port before it starts, to say where it is reached. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function report(endpoints, runs) {
  const rates = (name) => runs.filter((run) => run.target.name === name).map((run) => run.result.requests.average);
  const latency = (name, key) => median(runs.filter((run) => run.target.name === name).map((run) => run.result.latency[key]));
  const bareRates = rates('bare Fastify GET /hello');
  const rows = [['round', 'target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']];
  for (const { round, target, result } of runs)
    rows.push([
      String(round),
      target.name,
      result.requests.average.toFixed(0),
      String(result.latency.p50),
      String(result.latency.p99),
      String(result.non2xx),
      String(result.errors),
    ]);
  const lines = textTable(rows);
  const machine = machineName();
  const date = new Date().toISOString().slice(0, 10);
  const summary = [`bare Fastify GET /hello: ${median(bareRates).toFixed(0)} req/s (median of ${rounds})`];
  for (const endpoint of endpoints) {
    const direct = rates(`${endpoint.name}, direct`);
    const forwarded = rates(`${endpoint.name}, forwarded`);
    const ratio = median(forwarded.map((rate, i) => rate / direct[i]));
    const toBare = (values) => median(values.map((rate, i) => rate / bareRates[i])).toFixed(3);
    summary.push(
      `${endpoint.name}: direct ${median(direct).toFixed(0)} req/s (p50 ${latency(`${endpoint.name}, direct`, 'p50')} ms), forwarded ${median(forwarded).toFixed(0)} req/s (p50 ${latency(`${endpoint.name}, forwarded`, 'p50')} ms); forwarded ÷ direct ${ratio.toFixed(2)}`,
      `  markdown row: | ${date} | ${machine} | ${endpoint.name} | ${rounds} × ${duration} s, ${connections} connections | ${median(bareRates).toFixed(0)} | ${median(direct).toFixed(0)} (${toBare(direct)}) | ${median(forwarded).toFixed(0)} (${toBare(forwarded)}) | ${ratio.toFixed(2)} |`,
    );
  }
  process.stdout.write(['', ...lines, '', ...summary, ''].join('\n'));
}
