import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { fileURLToPath } from 'node:url';
import { AppModule } from './app.module.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { createDataSource } from './data-source.js';
import { openDatabase } from './database/database.js';
import { closeGracefully } from './http/close-gracefully.js';
import { createApp } from './http/create-app.js';
import { startLocalAgent } from './local-agent/local-agent.js';
import { createLoggers, type Loggers } from './logging/loggers.js';
import { loadTlsMaterial } from './tls/certificate.js';
import { readBuildInfo } from './version/build-info.js';

// How long in-flight requests may take to finish after SIGTERM before their connections are cut.
const DRAIN_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig(process.env, process.cwd());
  const loggers = createLoggers(config);
  const { logger, accessLog } = loggers;
  try {
    const build = await readBuildInfo(fileURLToPath(new URL('./build-info.json', import.meta.url)));
    const tls = await loadTlsMaterial(config);
    const database = await openDatabase(config, logger, createDataSource);
    let app: NestFastifyApplication;
    try {
      app = await createApp(AppModule.register({ config, logger, dataSource: database.dataSource, build, fingerprint: tls.fingerprint }), {
        config,
        tls,
        logger,
        accessLog,
        consoleDir: config.consoleDir ?? fileURLToPath(new URL('../../console/dist', import.meta.url)),
      });
      await listen(app, config);
    } catch (error) {
      await database.close();
      throw error;
    }
    const { port } = app.getHttpServer().address() as { port: number };
    logger.info(
      { port, bind: config.bind, dataDir: config.dataDir, fingerprint: tls.fingerprint, certificate: tls.origin, version: build.version },
      `Corral listening on https://${config.bind ?? 'localhost'}:${port}/api2/json (certificate SHA-256 fingerprint ${tls.fingerprint})`,
    );
    const localAgent =
      config.localNode === null
        ? null
        : await startLocalAgent(app, { node: config.localNode, dataDir: config.dataDir, port, fingerprint: tls.fingerprint, logger });
    stopOnSignal(loggers, async () => {
      await localAgent?.stop();
      await closeGracefully(app, DRAIN_MS);
      await database.close();
    });
  } catch (error) {
    logger.fatal({ err: error }, `Corral could not start: ${error instanceof Error ? error.message : String(error)}`);
    await loggers.flush();
    process.exitCode = 1;
  }
}

/** All interfaces by default: `::` (both IPv4 and IPv6), or `0.0.0.0` on a host without IPv6. */
async function listen(app: NestFastifyApplication, config: Config): Promise<void> {
  if (config.bind !== null) return void (await app.listen(config.port, config.bind));
  try {
    await app.listen(config.port, '::');
  } catch (error) {
    if (!['EAFNOSUPPORT', 'EADDRNOTAVAIL'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await app.listen(config.port, '0.0.0.0');
  }
}

/** SIGTERM or SIGINT: stop accepting, drain, stop the database, exit 0. A second signal exits at once. */
function stopOnSignal({ logger, flush }: Loggers, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // The log is written in batches: exit once its last lines are out.
    const exit = (code: number) => void flush().finally(() => process.exit(code));
    stop().then(
      () => {
        logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

await main().catch((error: unknown) => {
  // Only a bad environment gets here: everything later is logged by main().
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
