// What the benchmarks share: the built control plane started as a child process, an HTTPS request
// that trusts its self-signed certificate, and small helpers (docs/benchmarks.md).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import https from 'node:https';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../apps/control-plane/dist/main.js', import.meta.url));
export const ROOT_PASSWORD = 'bench-root-password';
export const AS_ROOT = `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}`;
const START_TIMEOUT_MS = 60_000;

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
