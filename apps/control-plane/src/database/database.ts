import { PgCluster } from '@corral/pg-cluster';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Config } from '../config/config.js';
import { migrate } from './migrate.js';

/** Where the database is: a URL (DATABASE_URL), or the embedded cluster's socket. */
export type DatabaseLocation =
  { readonly url: string } | { readonly host: string; readonly port: number; readonly username: string; readonly database: string };

/** Makes the DataSource for a location (the app's one definition, with every entity and migration). */
export type DataSourceFactory = (location: DatabaseLocation) => DataSource;

export interface Database {
  readonly dataSource: DataSource;
  /** Closes the connections, then stops the embedded server if there is one. */
  close(): Promise<void>;
}

const EMBEDDED_DATABASE = 'corral';

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL in `<data dir>/pg`; then migrates. */
export async function openDatabase(config: Config, logger: Logger, createDataSource: DataSourceFactory): Promise<Database> {
  if (config.databaseUrl !== null) return connect(createDataSource({ url: config.databaseUrl }), null, logger);
  const cluster = await PgCluster.start({
    dir: join(config.dataDir, 'pg'),
    logFile: join(config.dataDir, 'postgres.log'),
    log: (line) => logger.info(line),
  });
  try {
    await cluster.ensureDatabase(EMBEDDED_DATABASE);
    const { host, port, user } = cluster.connection;
    return await connect(createDataSource({ host, port, username: user, database: EMBEDDED_DATABASE }), cluster, logger);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

async function connect(dataSource: DataSource, cluster: PgCluster | null, logger: Logger): Promise<Database> {
  await dataSource.initialize();
  try {
    const applied = await migrate(dataSource);
    logger.info({ database: cluster ? `embedded in ${cluster.connection.host}` : 'DATABASE_URL', applied }, 'database ready');
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return {
    dataSource,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await cluster?.stop();
    },
  };
}
