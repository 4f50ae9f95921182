import { ControlPlaneProcess, createDatabase, databaseUrl, testPostgres, type ControlPlaneOptions } from '@corral/testing';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A new database of its own on the run's test PostgreSQL (fast: no embedded server). */
export async function testDatabaseUrl(): Promise<string> {
  const admin = testPostgres();
  return databaseUrl(admin, await createDatabase(admin));
}

/** A control plane on a database of its own, or on `databaseUrl` (replicas share one). */
export async function startOnTestDatabase(options: ControlPlaneOptions & { databaseUrl?: string } = {}): Promise<ControlPlaneProcess> {
  const url = options.databaseUrl ?? (await testDatabaseUrl());
  // No local agent: these tests join the agents they need.
  return ControlPlaneProcess.start({ ...options, env: { DATABASE_URL: url, CORRAL_LOCAL_AGENT: '0', ...options.env } });
}

/** A TCP port free on the loopback now (a replica must know its own port before it starts, to say where it is reached). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `count` control-plane replicas of one cluster on one database: each on a port of its own, said
 * in CORRAL_REPLICA_URL, all serving the first one's certificate and sharing a cluster secret.
 */
export async function startReplicas(
  count: number,
  options: { readonly root: string; readonly databaseUrl: string; readonly env?: Readonly<Record<string, string>> },
): Promise<ControlPlaneProcess[]> {
  const secret = randomBytes(32).toString('hex');
  const replicas: ControlPlaneProcess[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const port = await freePort();
      const dataDir = join(options.root, `replica${index + 1}`);
      await mkdir(dataDir, { recursive: true, mode: 0o755 });
      const first = replicas[0];
      const certificate: Record<string, string> = first
        ? { CORRAL_TLS_CERT: join(first.dataDir, 'tls/corral.crt'), CORRAL_TLS_KEY: join(first.dataDir, 'tls/corral.key') }
        : {};
      replicas.push(
        await startOnTestDatabase({
          databaseUrl: options.databaseUrl,
          dataDir,
          env: {
            CORRAL_PORT: String(port),
            CORRAL_REPLICA_URL: `https://127.0.0.1:${port}`,
            CORRAL_CLUSTER_SECRET: secret,
            ...certificate,
            ...options.env,
          },
        }),
      );
    }
  } catch (error) {
    for (const replica of replicas) await replica.stop();
    throw error;
  }
  return replicas;
}
