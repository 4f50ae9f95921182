import { ControlPlaneProcess, createDatabase, databaseUrl, testPostgres, type ControlPlaneOptions } from '@corral/testing';

/** A control plane on a database of its own on the run's test PostgreSQL (fast: no embedded server). */
export async function startOnTestDatabase(options: ControlPlaneOptions = {}): Promise<ControlPlaneProcess> {
  const admin = testPostgres();
  const database = await createDatabase(admin);
  return ControlPlaneProcess.start({ ...options, env: { DATABASE_URL: databaseUrl(admin, database), ...options.env } });
}
