import { PgCluster } from '@corral/pg-cluster';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** How test processes reach the test server: DATABASE_URL's server, or an embedded one. */
export type AdminConnection = { readonly url: string } | { readonly host: string; readonly port: number; readonly user: string };

const HANDOVER = 'CORRAL_TEST_POSTGRES';
/** The start of the name of every database a test run makes, so that its end can drop those it left. */
const PREFIX = 'CORRAL_TEST_DATABASE_PREFIX';

/**
 * The PostgreSQL server of one test run: the one DATABASE_URL names, or a throwaway embedded
 * cluster (the same code as the control plane's embedded mode). Started once in Jest's global
 * setup and handed to the test files through the environment. On DATABASE_URL's server, the
 * databases the run made and did not drop are dropped when it stops.
 */
export class TestPostgres {
  private constructor(
    readonly admin: AdminConnection,
    private readonly cluster: PgCluster | null,
    private readonly dir: string | null,
  ) {}

  static async start(): Promise<TestPostgres> {
    const url = process.env['DATABASE_URL'];
    process.env[PREFIX] = `t_${randomBytes(3).toString('hex')}_`;
    if (url) return new TestPostgres({ url }, null, null);
    const dir = await mkdtemp(join(tmpdir(), 'corral-test-pg-'));
    // mkdtemp makes it 0700: the server's own user must be able to traverse it.
    await chmod(dir, 0o755);
    const cluster = await PgCluster.start({ dir: join(dir, 'pg'), logFile: join(dir, 'postgres.log') });
    return new TestPostgres(cluster.connection, cluster, dir);
  }

  /** Makes the server known to the test files (Jest workers inherit the environment). */
  handOver(): void {
    process.env[HANDOVER] = JSON.stringify(this.admin);
  }

  async stop(): Promise<void> {
    if (this.cluster === null) await this.dropLeftovers();
    await this.cluster?.stop();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  private async dropLeftovers(): Promise<void> {
    const prefix = process.env[PREFIX];
    if (!prefix) return;
    const { rows } = await withAdmin(this.admin, (client) =>
      client.query<{ datname: string }>(`SELECT "datname" FROM "pg_database" WHERE starts_with("datname", $1)`, [prefix]),
    );
    for (const { datname } of rows) await dropDatabase(this.admin, datname);
  }
}

/** The server started by the global setup. */
export function testPostgres(): AdminConnection {
  const handed = process.env[HANDOVER];
  if (!handed) throw new Error('no test PostgreSQL: run the tests through their Jest config (its global setup starts one)');
  return JSON.parse(handed) as AdminConnection;
}

/** A new database, empty or copied from a template; its name is returned. */
export async function createDatabase(admin: AdminConnection, options: { template?: string; name?: string } = {}): Promise<string> {
  const name = options.name ?? `${process.env[PREFIX] ?? 't_'}${randomBytes(6).toString('hex')}`;
  await withAdmin(admin, (client) =>
    client.query(
      `CREATE DATABASE ${pg.escapeIdentifier(name)}${options.template ? ` TEMPLATE ${pg.escapeIdentifier(options.template)}` : ''}`,
    ),
  );
  return name;
}

export async function dropDatabase(admin: AdminConnection, name: string): Promise<void> {
  await withAdmin(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
}

/** A connection URL for one database of the server. */
export function databaseUrl(admin: AdminConnection, database: string): string {
  if ('url' in admin) {
    const url = new URL(admin.url);
    url.pathname = `/${database}`;
    return url.toString();
  }
  return `postgresql://${encodeURIComponent(admin.user)}@localhost:${admin.port}/${database}?host=${encodeURIComponent(admin.host)}`;
}

async function withAdmin<T>(admin: AdminConnection, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client('url' in admin ? { connectionString: admin.url } : { ...admin, database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
