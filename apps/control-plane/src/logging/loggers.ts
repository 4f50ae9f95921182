import type { LoggerService } from '@nestjs/common';
import { chmodSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../config/config.js';
import { BatchedFile } from './batched-file.js';
import { loggedError } from './logged-error.js';

export const LOGGER = Symbol('LOGGER');

export type AccessLogDestination = Pick<BatchedFile, 'write'>;

export interface Loggers {
  /** Structured application log, JSON lines on stdout. */
  readonly logger: Logger;
  /** Where the access log goes: `<data dir>/access.log` (as PVE's pveproxy), not stdout, which it would flood. */
  readonly accessLog: AccessLogDestination;
  /** Writes out what is still buffered; called before exit. */
  flush(): Promise<void>;
}

// Nothing logs request headers or bodies; these paths are a second line of defence.
const REDACT = ['req.headers.authorization', 'req.headers.cookie', 'password', 'ticket', 'token', 'secret'];
// A line per request adds up: lines are written in batches, and at least every half second.
const BATCH_BYTES = 4096;
const ACCESS_BATCH_CHARS = 64 * 1024;
const FLUSH_EVERY_MS = 500;

/** How every logger of the control plane logs (the tests' too): secrets redacted, errors through `loggedError`. */
export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: REDACT, serializers: { err: loggedError } };
}

/** The access log names users and their addresses: readable by its owner and group only, as PVE's. */
const ACCESS_LOG_MODE = 0o640;

export function createLoggers(config: Config): Loggers {
  const stdout = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  const logger = pino({ ...loggerOptions(config.logLevel), base: { pid: process.pid } }, stdout);
  mkdirSync(config.dataDir, { recursive: true });
  const accessPath = join(config.dataDir, 'access.log');
  if (existsSync(accessPath)) chmodSync(accessPath, ACCESS_LOG_MODE);
  const accessFile = new BatchedFile(openSync(accessPath, 'a', ACCESS_LOG_MODE), ACCESS_BATCH_CHARS, (error) =>
    logger.error({ err: error }, 'cannot write the access log'),
  );
  setInterval(() => {
    stdout.flush();
    void accessFile.flush();
  }, FLUSH_EVERY_MS).unref();
  const flush = async () => {
    await Promise.all([new Promise<void>((done) => stdout.flush(() => done())), accessFile.flush()]);
  };
  return { logger, accessLog: accessFile, flush };
}

/** Nest's own messages (module wiring, route mapping) go to the structured log; its chatter at debug. */
export function nestLogger(logger: Logger): LoggerService {
  const child = logger.child({ component: 'nest' });
  return {
    log: (message: unknown, context?: string) => child.debug({ context }, String(message)),
    error: (message: unknown, trace?: string, context?: string) => child.error({ context, trace }, String(message)),
    warn: (message: unknown, context?: string) => child.warn({ context }, String(message)),
    debug: (message: unknown, context?: string) => child.debug({ context }, String(message)),
    verbose: (message: unknown, context?: string) => child.trace({ context }, String(message)),
  };
}
