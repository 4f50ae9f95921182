import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { TlsMaterial } from '../tls/certificate.js';
import { nestLogger, type AccessLogDestination } from '../logging/loggers.js';
import { registerAccessLog, requestIds } from './access-log.js';
import { registerBodyTimeout } from './body-timeout.js';
import { clientErrorHandler } from './client-errors.js';
import { loadConsoleFiles, registerConsole } from './console-files.js';
import { registerMultipart } from './multipart-upload.js';
import { API_PREFIX } from './endpoint-registry.js';

// PVE's limit since pve-http-server 5.2.1.
const BODY_LIMIT = 512 * 1024;
// Node's default, stated: a request's headers together, request line included.
const MAX_HEADER_BYTES = 16 * 1024;

export interface HttpSetup {
  readonly config: Pick<Config, 'errorFormat' | 'httpBodyTimeoutS'>;
  readonly tls: Pick<TlsMaterial, 'key' | 'cert'>;
  readonly logger: Logger;
  readonly accessLog: AccessLogDestination;
  /** Where the built web console is (`/` says so when it was not built there); null: no console routes at all. */
  readonly consoleDir: string | null;
}

/** The Nest application on Fastify over HTTPS (HTTP/1.1: reason phrases carry error text), not yet listening. */
export async function createApp(root: DynamicModule, setup: HttpSetup): Promise<NestFastifyApplication> {
  const { errorFormat, httpBodyTimeoutS } = setup.config;
  const adapter = new FastifyAdapter({
    https: {
      key: setup.tls.key,
      cert: setup.tls.cert,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node checks the headers' time now and then: every second, so that the setting holds.
      headersTimeout: httpBodyTimeoutS * 1000,
      connectionsCheckingInterval: 1000,
    },
    clientErrorHandler: clientErrorHandler(errorFormat, { maxHeaderBytes: MAX_HEADER_BYTES, timeoutS: httpBodyTimeoutS }),
    bodyLimit: BODY_LIMIT,
    genReqId: requestIds(),
    // In-flight requests finish during shutdown; idle keep-alive connections are closed at once.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 1000 },
  });
  const fastify = adapter.getInstance();
  fastify.decorateRequest('corralParams', null);
  // Bodies are JSON or forms (Nest registers both); anything else is a 415.
  fastify.removeContentTypeParser('text/plain');
  registerAccessLog(fastify, setup.accessLog);
  registerBodyTimeout(fastify, errorFormat, httpBodyTimeoutS);
  // Uploads (multipart) are streamed to their handler, past the body limit above.
  await registerMultipart(fastify);
  if (setup.consoleDir !== null) registerConsole(fastify, await loadConsoleFiles(setup.consoleDir));
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    logger: nestLogger(setup.logger),
    abortOnError: false,
  });
  app.setGlobalPrefix(API_PREFIX.slice(1));
  await app.init();
  return app;
}
