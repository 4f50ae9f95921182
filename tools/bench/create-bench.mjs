// 200 parallel VM creates through the API on the `sim` driver: half with their own ids,
// half with ids from GET /cluster/nextid, all at once, against a bare Fastify HTTPS route that
// answers 200 parallel POSTs from the same client in the same run (docs/benchmarks.md).
// With --fill <n>, the rounds run again once the node holds n more VMs (made through the API,
// not measured), to show whether creates slow down as a node fills.
// Usage: node tools/bench/create-bench.mjs [--creates <n>] [--rounds <n>] [--fill <n>] (or BENCH_CREATES / BENCH_ROUNDS / BENCH_FILL).
// The agent's log goes to stderr: 2>/dev/null keeps only the figures (stdout).
// Exits 1 when any create failed, any task did not end OK, or a guest is missing or still locked.
import Fastify from 'fastify';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AS_ROOT, fail, fetchInsecure, MAIN, median, positiveInt, progress, startControlPlane, machineName } from './bench-support.mjs';

const NODE = 'bench';
const TASK_PATIENCE_MS = 300_000;

const { values: flags } = parseArgs({ options: { creates: { type: 'string' }, rounds: { type: 'string' }, fill: { type: 'string' } } });
const creates = positiveInt('creates', flags.creates ?? process.env.BENCH_CREATES ?? '200');
const rounds = positiveInt('rounds', flags.rounds ?? process.env.BENCH_ROUNDS ?? '3');
const fill = Number(flags.fill ?? process.env.BENCH_FILL ?? '0');
if (!Number.isInteger(fill) || fill < 0) fail(`--fill must be an integer of 0 or more, got ${JSON.stringify(flags.fill)}`);
/** The fill's VMs take ids from here on, apart from the rounds' (100000 × round + i) and GET /cluster/nextid's (the lowest free). */
const FILL_FIRST_VMID = 900_000;

if (!existsSync(MAIN)) fail(`${MAIN} is missing: run npx nx run-many -t build -p control-plane agent first`);

const dataDir = await mkdtemp(join(os.tmpdir(), 'corral-bench-'));
// As many sockets as requests: the parallelism is the point.
const agent = new https.Agent({ keepAlive: true, maxSockets: creates, rejectUnauthorized: false });
let controlPlane = null;
let bare = null;
let failed = false;
try {
  await chmod(dataDir, 0o755);
  // The local agent of `npm start` on the simulator at speed 0: what is measured is Corral, not simulated waits.
  // The embedded PostgreSQL in the data directory, whatever DATABASE_URL says: the fill goes with it.
  controlPlane = await startControlPlane(dataDir, {
    CORRAL_NODE_NAME: NODE,
    CORRAL_DRIVER: 'sim',
    CORRAL_SIM_SPEED: '0',
    DATABASE_URL: '',
  });
  const api = `https://127.0.0.1:${controlPlane.port}/api2/json`;
  await waitForNode(api);
  bare = Fastify({
    https: { cert: await readFile(join(dataDir, 'tls/corral.crt')), key: await readFile(join(dataDir, 'tls/corral.key')) },
  });
  bare.post('/hello', async () => ({ data: 'UPID:bare' }));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = `https://127.0.0.1:${bare.server.address().port}/hello`;

  // Every socket opened (TLS handshakes) before anything is measured, to both servers alike.
  await Promise.all(Array.from({ length: creates }, () => send(bareUrl, 'POST', 'vmid=1')));
  await Promise.all(Array.from({ length: creates }, () => send(`${api}/version`)));
  const runs = [{ fill: 0, results: await measure(api, bareUrl, 0) }];
  if (fill > 0) {
    await fillNode(api);
    runs.push({ fill, results: await measure(api, bareUrl, fill) });
  }
  for (const { fill: guests, results } of runs) report(results, guests);
  if (fill > 0) {
    const rate = (results) => median(results.map((result) => result.createRate));
    progress(`creates/s with ${fill} VMs on the node ÷ on an empty node: ${(rate(runs[1].results) / rate(runs[0].results)).toFixed(2)}`);
  }
  if (failed) progress('FAILED: some creates failed (see above); the figures are not a result');
} finally {
  if (controlPlane) await controlPlane.stop();
  if (bare) await bare.close();
  agent.destroy();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** The rounds, each against bare Fastify in the same moment, with `guests` VMs already on the node. */
async function measure(api, bareUrl, guests) {
  const results = [];
  for (let round = 1; round <= rounds; round++) {
    progress(
      `${guests} VMs on the node, round ${round}/${rounds}: ${creates} parallel POSTs to bare Fastify, then ${creates} parallel creates`,
    );
    const bareSeconds = await timed(() => Promise.all(Array.from({ length: creates }, () => send(bareUrl, 'POST', 'vmid=1'))));
    const outcome = await createRound(api, round, guests);
    results.push({ round, bareRate: creates / bareSeconds, createRate: creates / outcome.seconds, ...outcome });
    if (outcome.failures.length > 0) failed = true;
  }
  return results;
}

/** Makes `fill` VMs on the node, `creates` at a time, each awaited; they stay until the data directory goes. */
async function fillNode(api) {
  let next = 0;
  let made = 0;
  let lap = Date.now();
  await Promise.all(
    Array.from({ length: creates }, async () => {
      while (next < fill) {
        const vmid = FILL_FIRST_VMID + next++;
        const response = await send(`${api}/nodes/${NODE}/qemu`, 'POST', createBody(vmid));
        if (response.status !== 200) fail(`fill: create ${vmid}: ${response.status} ${response.text}`);
        const exit = await taskEnd(api, JSON.parse(response.text).data);
        if (exit !== 'OK') fail(`fill: create ${vmid}: ${exit}`);
        if (++made % 1000 === 0) {
          progress(`  filled ${made}/${fill} (the last 1000 at ${(1000 / ((Date.now() - lap) / 1000)).toFixed(0)} creates/s)`);
          lap = Date.now();
        }
      }
    }),
  );
}

function createBody(vmid) {
  return new URLSearchParams({
    vmid: String(vmid),
    name: `bench${vmid}`,
    memory: '512',
    scsi0: 'local:8',
    net0: 'virtio,bridge=vmbr0',
  }).toString();
}

/** One round: every create sent at once, then every task awaited; the time is from the first request to the last task's end. */
async function createRound(api, round, guests) {
  const half = Math.floor(creates / 2);
  const failures = [];
  const seconds = await timed(async () => {
    const upids = await Promise.all(
      Array.from({ length: creates }, async (_, i) => {
        const vmid = i < half ? 100_000 * round + i : Number(JSON.parse((await send(`${api}/cluster/nextid`)).text).data);
        const response = await send(`${api}/nodes/${NODE}/qemu`, 'POST', createBody(vmid));
        if (response.status !== 200) failures.push(`create ${vmid}: ${response.status} ${response.text}`);
        return response.status === 200 ? JSON.parse(response.text).data : null;
      }),
    );
    await Promise.all(
      upids
        .filter((upid) => upid !== null)
        .map(async (upid) => {
          const exit = await taskEnd(api, upid);
          if (exit !== 'OK') failures.push(`${upid}: ${exit}`);
        }),
    );
  });
  const listed = JSON.parse((await send(`${api}/cluster/resources?type=vm`)).text).data;
  const made = listed.filter((guest) => guest.vmid < FILL_FIRST_VMID || guest.vmid >= FILL_FIRST_VMID + guests);
  const locked = listed.filter((guest) => guest.lock !== undefined).length;
  if (made.length !== creates) failures.push(`${made.length} guests made, ${creates} expected`);
  if (locked > 0) failures.push(`${locked} guests are still locked`);
  // The simulator keeps its guests on the host, as a real driver would: the bench leaves none behind.
  await Promise.all(
    made.map(async (guest) => {
      const response = await send(`${api}/nodes/${NODE}/qemu/${guest.vmid}`, 'DELETE');
      const exit = response.status === 200 ? await taskEnd(api, JSON.parse(response.text).data) : `${response.status} ${response.text}`;
      if (exit !== 'OK') failures.push(`delete ${guest.vmid}: ${exit}`);
    }),
  );
  for (const failure of failures.slice(0, 10)) progress(`  ${failure}`);
  return { seconds, failures };
}

/** Waits for a task with the API's own long poll (`?wait=`), so the bench adds no polling load of its own. */
async function taskEnd(api, upid) {
  const deadline = Date.now() + TASK_PATIENCE_MS;
  while (Date.now() < deadline) {
    const response = await send(`${api}/nodes/${NODE}/tasks/${encodeURIComponent(upid)}/status?wait=30`);
    if (response.status !== 200) return `its status could not be read: ${response.status} ${response.text}`;
    const status = JSON.parse(response.text).data;
    if (status?.exitstatus !== undefined) return status.exitstatus;
  }
  return 'did not end in time';
}

async function waitForNode(api) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const nodes = JSON.parse((await send(`${api}/nodes`)).text).data ?? [];
    if (nodes.some((node) => node.node === NODE && node.status === 'online')) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  fail(`node '${NODE}' (the local agent) did not come online`);
}

function send(url, method = 'GET', body) {
  const headers = { authorization: AS_ROOT, ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) };
  return fetchInsecure(url, { method, headers, body, agent });
}

async function timed(work) {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function report(results, guests) {
  const lines = results.map(
    ({ round, bareRate, createRate, seconds, failures }) =>
      `round ${round}: bare Fastify ${bareRate.toFixed(0)} POST/s; ${creates} creates in ${seconds.toFixed(2)} s = ${createRate.toFixed(0)} creates/s (ratio ${(createRate / bareRate).toFixed(3)}); failures ${failures.length}`,
  );
  const ratio = median(results.map((result) => result.createRate / result.bareRate)).toFixed(3);
  const machine = machineName();
  const row = `| ${new Date().toISOString().slice(0, 10)} | ${machine} | ${creates} parallel creates (sim, speed 0), ${guests} VMs on the node | ${rounds} rounds | ${median(results.map((r) => r.bareRate)).toFixed(0)} | ${median(results.map((r) => r.createRate)).toFixed(0)} | ${ratio} | ${results.reduce((sum, r) => sum + r.failures.length, 0)} |`;
  process.stdout.write(['', ...lines, '', `median ratio creates/s ÷ bare POST/s: ${ratio}`, `  markdown row: ${row}`, ''].join('\n'));
}
