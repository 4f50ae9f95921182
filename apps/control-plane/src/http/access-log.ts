import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { callerName } from './principal.js';
import type { AccessLogDestination } from '../logging/loggers.js';
import { pathOf } from './request-path.js';
import { clientAddress } from './client-address.js';

/**
 * One access-log line per request: time, client address,
 * user once known, method, path, status, bytes, duration. The query string is left out: it may
 * carry a token. A fixed, flat JSON line written directly: pino's general machinery
 * cost a tenth of the throughput of GET /version (docs/benchmarks.md).
 */
export function registerAccessLog(fastify: FastifyInstance, accessLog: AccessLogDestination): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const line = {
      time: new Date().toISOString(),
      reqId: request.id,
      client: clientAddress(request),
      // The token id when a token called (`user@realm!tokenid`), as PVE logs it.
      user: request.corralPrincipal ? callerName(request.corralPrincipal) : null,
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      bytes: Number(reply.getHeader('content-length') ?? 0),
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    accessLog.write(`${JSON.stringify(line)}\n`);
    done();
  });
}

/** Request ids unique across restarts: a random prefix per process, then a counter. */
export function requestIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let next = 0;
  return () => `${prefix}-${(next++).toString(36)}`;
}
