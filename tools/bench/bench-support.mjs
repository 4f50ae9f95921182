// What the benchmarks share: the built control plane started as a child process, an HTTPS request
// that trusts its self-signed certificate, and small helpers (docs/benchmarks.md); for the
// benchmarks that drive guests, root's API client, a sim agent joined through the API, and the
// bare Fastify server they compare against.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../apps/control-plane/dist/main.js', import.meta.url));
export const AGENT_MAIN = fileURLToPath(new URL('../../apps/agent/dist/main.js', import.meta.url));
export const ROOT_PASSWORD = 'bench-root-password';
export const AS_ROOT = `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}`;
const START_TIMEOUT_MS = 60_000;
/** How long a throughput measurement warms up first. */
export const WARMUP_S = 2;
const SPEED_SAMPLE_S = 3;

/** Starts the built control plane on a free port and resolves once its "listening" log line names the port. */
export async function startControlPlane(dir, env = {}) {
  // The harness's own node flags are passed on, so that `node --cpu-prof <this file>` profiles the control plane too.
  const child = spawn(process.execPath, [...process.execArgv, MAIN], {
    env: { ...process.env, CORRAL_PORT: '0', CORRAL_DATA_DIR: dir, CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the control plane did not start listening in time')), START_TIMEOUT_MS);
    let pending = '';
    let found = false;
    child.stdout.setEncoding('utf8');
    // Stays attached after the port is known so that the access log (one line per request) never fills the pipe.
    child.stdout.on('data', (chunk) => {
      if (found) return;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const entry = parseJson(line);
        if (typeof entry?.port === 'number' && entry.fingerprint) {
          found = true;
          clearTimeout(timer);
          resolve(entry.port);
          return;
        }
      }
    });
    exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`the control plane exited before listening (code ${code}, signal ${signal})`));
    }, reject);
  }).catch(async (error) => {
    child.kill('SIGTERM');
    await exited;
    throw error;
  });
  return {
    port,
    pid: child.pid,
    /** Ends it with SIGKILL, as a crash would, and resolves once it exited. */
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const [code, signal] = await exited;
      if (code !== 0) progress(`warning: the control plane exited with code ${code}, signal ${signal}`);
    },
  };
}

// The control plane's certificate is self-signed: the benchmarks' requests do not verify it.
// `agent`: an https.Agent whose sockets the requests share (created with rejectUnauthorized: false).
export function fetchInsecure(url, { method = 'GET', headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method, headers, ...(agent ? { agent } : { rejectUnauthorized: false }) }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function parseJson(line) {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

export function positiveInt(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

export function progress(message) {
  process.stderr.write(`${message}\n`);
}

export function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const TASK_PATIENCE_MS = 300_000;

/**
 * The bare Fastify HTTPS server the benchmarks compare against: the control plane's certificate
 * from its data directory `dir`, the routes `routes(app)` adds, a free port on 127.0.0.1.
 */
export async function startBareFastify(dir, routes) {
  const app = Fastify({ https: { cert: await readFile(join(dir, 'tls/corral.crt')), key: await readFile(join(dir, 'tls/corral.key')) } });
  routes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin: `https://127.0.0.1:${app.server.address().port}` };
}

/**
 * Calls to the control plane's API at `api` (`https://127.0.0.1:<port>/api2/json`) as root, over
 * up to `sockets` kept-alive connections, with root's password or another `authorization` of root's.
 * `data` throws on anything but a 200, so that a failed request is never taken for a result.
 */
export function rootClient(api, sockets, authorization = AS_ROOT) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, rejectUnauthorized: false });
  const send = (path, method = 'GET', form) => {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const headers = { authorization, ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) };
    return fetchInsecure(`${api}${path}`, { method, headers, body, agent });
  };
  const busy = { count: 0 };
  const data = async (path, method = 'GET', form) => {
    const response = await send(path, method, form);
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    return JSON.parse(response.text).data;
  };
  return {
    send,
    data,
    /**
     * A task's exit status, read with the API's own long poll (`?wait=`), so that waiting adds no
     * polling load. A 503 (the control plane busy or its database out of reach) is asked again after
     * a second, as its message says, and counted in `busy`.
     */
    async taskEnd(node, upid) {
      const deadline = Date.now() + TASK_PATIENCE_MS;
      while (Date.now() < deadline) {
        const response = await send(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status?wait=30`);
        if (response.status === 503) {
          busy.count += 1;
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        if (response.status !== 200) throw new Error(`the status of ${upid} answered ${response.status}: ${response.text}`);
        const status = JSON.parse(response.text).data;
        if (status?.exitstatus !== undefined) return status.exitstatus;
      }
      return 'did not end in time';
    },
    /** How many task status reads answered 503 and were asked again. */
    busy,
    async waitForNode(node) {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if ((await data('/nodes')).some((entry) => entry.node === node && entry.status === 'online')) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`node '${node}' did not come online`);
    },
    close: () => agent.destroy(),
  };
}

/**
 * A new API token of root's with root's privileges, made through `client` (a rootClient): the
 * `authorization` of many requests at once, which logins with a password are not (each login costs
 * a password hash, and the control plane takes only a few at a time).
 */
export async function rootToken(client) {
  const name = `bench-${Date.now().toString(36)}`;
  const { value } = await client.data(`/access/users/root@pam/token/${name}`, 'POST', { privsep: '0' });
  return `PVEAPIToken=root@pam!${name}=${value}`;
}

/**
 * Joins `node` through the API of `client` (a rootClient) and runs the built agent for it, with a
 * host root of its own under `dir` (`<dir>/hosts/<node>`), as the e2e tests do: by default on the
 * `sim` driver at speed 0 (no simulated waits), whose state stays in the benchmark's directory;
 * `driver: 'native'` runs real guests. `address` is where it reaches the control plane. Resolves
 * once the node is online, with a way to stop it (SIGTERM), kill it (SIGKILL) and start it again
 * with the same credential. For a control plane started with CORRAL_LOCAL_AGENT=0.
 */
export async function startAgent(client, { port, dir, node, driver = 'sim', address = '127.0.0.1' }) {
  const { token, fingerprint } = await client.data('/cluster/join-tokens', 'POST', { node });
  const { credential } = await client.data('/cluster/join', 'POST', { token, node });
  const hostRoot = join(dir, 'hosts', node);
  const config = join(dir, 'hosts', `${node}.json`);
  await mkdir(hostRoot, { recursive: true });
  await writeFile(config, JSON.stringify({ url: `https://${address}:${port}`, fingerprint, node, credential, hostRoot }), { mode: 0o600 });
  const spawnAgent = () => {
    const child = spawn(process.execPath, [AGENT_MAIN, '--config', config], {
      env: { ...process.env, CORRAL_DRIVER: driver, ...(driver === 'sim' ? { CORRAL_SIM_SPEED: '0' } : {}) },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return { child, exited: once(child, 'exit') };
  };
  let running = spawnAgent();
  await client.waitForNode(node);
  const end = async (signal) => {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill(signal);
    await running.exited;
  };
  return {
    hostRoot,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    /** Starts the agent again after a stop or kill; resolves once the node is online. */
    async restart() {
      running = spawnAgent();
      await client.waitForNode(node);
    },
  };
}

/** Requests per second of the bare route and of GET /version, 50 connections, after a second's warm-up each: how fast the machine is now; errors go to `failures`. */
export async function machineSpeed(bareUrl, versionUrl, failures) {
  const measure = async (url) => {
    await autocannon({ url, duration: 1, connections: 50, workers: 1 });
    const result = await autocannon({ url, duration: SPEED_SAMPLE_S, connections: 50, workers: 1 });
    if (result.errors > 0 || result.non2xx > 0) failures.push(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
    return result.requests.average;
  };
  progress(`machine speed: bare Fastify, then GET /version, ${SPEED_SAMPLE_S} s each`);
  const bareRate = await measure(bareUrl);
  return { bareRate, versionRate: await measure(versionUrl) };
}

/**
 * The load options of a throughput benchmark: `--duration`, `--connections`, `--rounds` (or
 * BENCH_DURATION, BENCH_CONNECTIONS, BENCH_ROUNDS), with its defaults; `extra` names a benchmark's
 * own string options, returned as given under `flags`.
 */
export function loadOptions(defaults, extra = []) {
  const { values: flags } = parseArgs({
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      ...Object.fromEntries(extra.map((name) => [name, { type: 'string' }])),
    },
  });
  return {
    flags,
    duration: positiveInt('duration', flags.duration ?? process.env.BENCH_DURATION ?? String(defaults.duration)),
    connections: positiveInt('connections', flags.connections ?? process.env.BENCH_CONNECTIONS ?? String(defaults.connections)),
    rounds: positiveInt('rounds', flags.rounds ?? process.env.BENCH_ROUNDS ?? String(defaults.rounds)),
  };
}

/** The machine a result was measured on, for a row of docs/benchmarks.md: CPU model, cores, memory, Node. */
export function machineName() {
  const cpus = os.cpus();
  return `${cpus[0].model.trim()}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
}

/** Rows of text cells as aligned lines: the second column (the target's name) to the left, the others (figures) to the right. */
export function textTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row.map((cell, column) => (column === 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  '),
  );
}

/** How long autocannon waits for an answer before it counts the request as an error (its own default). */
const AUTOCANNON_TIMEOUT_S = 10;

/**
 * autocannon against `target` (`{ url, method, body, headers, timeoutS }`) for `seconds` with
 * `connections` kept-alive connections, after a warm-up of WARMUP_S: its result. A request not
 * answered within `timeoutS` (10 s by default) counts as an error. The client runs in a worker
 * thread: on the main thread it would share an event loop with what the benchmark runs there (a
 * bare server, simulated agents). autocannon never verifies the server certificate.
 */
export async function measureLoad(target, seconds, connections) {
  const run = (duration) =>
    autocannon({
      url: target.url,
      method: target.method ?? 'GET',
      body: target.body,
      headers: target.headers,
      duration,
      connections,
      pipelining: 1,
      workers: 1,
      timeout: target.timeoutS ?? AUTOCANNON_TIMEOUT_S,
    });
  await run(WARMUP_S);
  return run(seconds);
}

/** The measured runs of a throughput benchmark (`{ round, name, result }`, result autocannon's) as aligned lines, one per run. */
export function roundsTable(runs) {
  return textTable([
    ['round', 'target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
    ...runs.map(({ round, name, result }) => [
      String(round),
      name,
      result.requests.average.toFixed(0),
      String(result.latency.p50),
      String(result.latency.p99),
      String(result.non2xx),
      String(result.errors),
    ]),
  ]);
}

/** Polls `check` every `everyMs` until it is true; throws naming `what` after `patienceMs`. */
export async function until(check, what, { patienceMs, everyMs }) {
  const deadline = Date.now() + patienceMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${patienceMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The value below which `fraction` (0 to 1) of `values` lie, by the nearest rank. */
export function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}
