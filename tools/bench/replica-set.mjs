// Control-plane replicas for the cluster benchmark: `count` replicas of the built control plane on
// one new database of the PostgreSQL server at DATABASE_URL, sharing the first one's certificate
// and a cluster secret, without local agents, as docs/scale-out.md deploys them.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { progress, startControlPlane } from './bench-support.mjs';

/** Starts the replicas in `dir/<name>-replica<n>`; `stop()` ends them and drops their database. */
export async function startReplicaSet(count, { dir, name, serverUrl }) {
  const database = `corral_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const secret = randomBytes(32).toString('hex');
  const replicas = [];
  const stop = async () => {
    for (const replica of replicas) await replica.stop();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  };
  try {
    for (let index = 1; index <= count; index++) {
      const port = await freePort();
      const dataDir = join(dir, `${name}-replica${index}`);
      await mkdir(dataDir, { recursive: true, mode: 0o755 });
      const first = join(dir, `${name}-replica1`);
      const certificate =
        index === 1 ? {} : { CORRAL_TLS_CERT: join(first, 'tls/corral.crt'), CORRAL_TLS_KEY: join(first, 'tls/corral.key') };
      progress(`starting ${name} replica ${index} on port ${port}`);
      const replica = await startControlPlane(dataDir, {
        DATABASE_URL: url.toString(),
        CORRAL_PORT: String(port),
        CORRAL_REPLICA_URL: `https://127.0.0.1:${port}`,
        CORRAL_CLUSTER_SECRET: secret,
        CORRAL_LOCAL_AGENT: '0',
        ...certificate,
      });
      replicas.push({ ...replica, url: `https://127.0.0.1:${port}`, api: `https://127.0.0.1:${port}/api2/json`, dataDir });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { replicas, urls: replicas.map((replica) => replica.url), stop };
}

/** A TCP port free on the loopback now: a replica must know its port before it starts, to say where it is reached. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
