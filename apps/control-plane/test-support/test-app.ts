import { AGENT_WEBSOCKET_PATH } from '@corral/protocol';
import { HttpsClient, testFolder } from '@corral/testing';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { rm } from 'node:fs/promises';
import { pino, type Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { CoreModule } from '../src/core.module.js';
import { createApp } from '../src/http/create-app.js';
import { loadTlsMaterial } from '../src/tls/certificate.js';
import { testDataSource } from './test-database.js';

/** root@pam's password in every test app. */
export const TEST_ROOT_PASSWORD = 'test-root-password';

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly api: HttpsClient;
  readonly dataSource: DataSource;
  /** The app's certificate (PEM), for clients that trust it as is. */
  readonly cert: string;
  /** `wss://127.0.0.1:<port>/agent/v1` */
  readonly agentUrl: string;
  close(): Promise<void>;
}

/**
 * The real HTTP stack (adapter, guard, envelope, filter) with the given controllers, on its own
 * database, listening on a free port of 127.0.0.1 over HTTPS with a generated certificate.
 */
export async function startTestApp(options: {
  controllers?: Type[];
  imports?: Type[];
  logger?: Logger;
  env?: Record<string, string>;
  /** Turns the test database's URL into the one the app connects to (through a proxy the test cuts). */
  reachDatabase?: (url: string) => string;
}): Promise<TestApp> {
  const dataDir = await testFolder('corral-int-');
  const config = loadConfig(
    {
      CORRAL_DATA_DIR: dataDir,
      CORRAL_PORT: '0',
      CORRAL_BIND: '127.0.0.1',
      CORRAL_ROOT_PASSWORD: TEST_ROOT_PASSWORD,
      CORRAL_CHECK_RESPONSES: '1',
      ...options.env,
    },
    dataDir,
  );
  const tls = await loadTlsMaterial(config);
  const database = await testDataSource(options.reachDatabase);
  const logger = options.logger ?? pino({ level: 'silent' });
  const root = {
    module: class TestRootModule {},
    imports: [
      CoreModule.register({
        config,
        logger,
        dataSource: database.dataSource,
        build: { version: '0.0.0-test', commit: null },
        fingerprint: tls.fingerprint,
      }),
      ...(options.imports ?? []),
    ],
    controllers: options.controllers ?? [],
  };
  const app = await createApp(root, { config, tls, logger, accessLog: { write: () => true }, consoleDir: config.consoleDir });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const api = new HttpsClient(`https://127.0.0.1:${port}/api2/json`, tls.cert);
  return {
    app,
    api,
    dataSource: database.dataSource,
    cert: tls.cert,
    agentUrl: `wss://127.0.0.1:${port}${AGENT_WEBSOCKET_PATH}`,
    close: async () => {
      try {
        api.close();
        await app.close();
        await database.drop();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
