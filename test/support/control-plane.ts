import { ControlPlaneProcess, createDatabase, databaseUrl, testPostgres, type ControlPlaneOptions } from '@corral/testing';

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
