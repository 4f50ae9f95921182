// Throughput of the control plane's GET /api2/json/version (public) and GET /api2/json/access (an
// API token authenticated and its permission checked) against a bare Fastify HTTPS server
// answering GET /hello, all with the control plane's certificate (docs/benchmarks.md).
// Usage: node tools/bench/version-bench.mjs [--duration <s>] [--connections <n>] [--rounds <n>]
// (or BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS). Exits 1 when any request failed or was not 2xx.
// The two targets are measured alternately, round after round, and the medians are reported: on a
// shared machine the speed drifts by a quarter within minutes, and alternating spreads that drift.
import Fastify from 'fastify';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import {
  fail,
  MAIN,
  measureLoad,
  WARMUP_S,
  median,
  progress,
  rootClient,
  rootToken,
  roundsTable,
  startControlPlane,
  loadOptions,
  machineName,
} from './bench-support.mjs';

const { duration, connections, rounds } = loadOptions({ duration: 10, connections: 50, rounds: 3 });

if (!existsSync(MAIN)) fail(`${MAIN} is missing: run npx nx run control-plane:build first`);

const dataDir = await mkdtemp(join(os.tmpdir(), 'corral-bench-'));
let controlPlane = null;
let bare = null;
let failed = false;
try {
  // mkdtemp makes the directory 0700; the embedded PostgreSQL runs as user postgres and must traverse it.
  await chmod(dataDir, 0o755);
  controlPlane = await startControlPlane(dataDir);
  const tls = {
    cert: await readFile(join(dataDir, 'tls/corral.crt')),
    key: await readFile(join(dataDir, 'tls/corral.key')),
  };
  bare = Fastify({ https: tls });
  bare.get('/hello', async () => ({ hello: 'world' }));
  await bare.listen({ host: '127.0.0.1', port: 0 });

  const api = `https://127.0.0.1:${controlPlane.port}/api2/json`;
  const targets = [
    { name: 'bare Fastify GET /hello', url: `https://127.0.0.1:${bare.server.address().port}/hello` },
    { name: 'control plane GET /version', url: `${api}/version` },
    { name: 'control plane GET /access, API token', url: `${api}/access`, headers: { authorization: await tokenOf(api) } },
  ];
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      progress(
        `round ${round}/${rounds}, ${target.name}: warming up ${WARMUP_S} s, then measuring ${duration} s with ${connections} connections`,
      );
      runs.push({ round, ...target, result: await measureLoad(target, duration, connections) });
    }
  }
  report(targets, runs);
  failed = runs.some(({ result }) => result.requests.total === 0 || result.non2xx > 0 || result.errors > 0);
  if (failed) progress('FAILED: some requests errored or were not 2xx (or none completed); the figures above are not a result');
} finally {
  if (controlPlane) await controlPlane.stop();
  if (bare) await bare.close();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** An API token of root@pam without privilege separation, as the Authorization header that carries it. */
async function tokenOf(api) {
  const client = rootClient(api, 1);
  return rootToken(client).finally(() => client.close());
}

function report(targets, runs) {
  const lines = roundsTable(runs);
  const rates = (target) => runs.filter((run) => run.name === target.name).map((run) => run.result.requests.average);
  const [bareTarget, ...measured] = targets;
  const bareRates = rates(bareTarget);
  const machine = machineName();
  const date = new Date().toISOString().slice(0, 10);
  const summary = measured.flatMap((target) => {
    const ratios = rates(target).map((rate, i) => rate / bareRates[i]);
    const ratio = median(ratios).toFixed(2);
    return [
      `ratio ${target.name} ÷ bare Fastify, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${ratio}`,
      `  markdown row: | ${date} | ${machine} | ${target.name} | ${rounds} × ${duration} s | ${median(bareRates).toFixed(0)} | ${median(rates(target)).toFixed(0)} | ${ratio} |`,
    ];
  });
  process.stdout.write(['', ...lines, '', ...summary, ''].join('\n'));
}
