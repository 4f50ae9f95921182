import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { callerName } from './principal.js';
import type { AccessLogDestination } from '../logging/loggers.js';
import { pathOf } from './request-path.js';
import { clientAddress } from './client-address.js';

/**
 * One access-log line per request: time, client address, user once known, method, path, status,
 * bytes, duration. The query string is left out: it may carry a token. A fixed, flat JSON line
 * built as text: pino's general machinery cost a tenth of the throughput of GET /version
 * (docs/benchmarks.md), and an object through `JSON.stringify` a few percent more. Only the fields
 * a client chooses (its path, its user name) and the address are quoted by `JSON.stringify`; the
 * method is one the HTTP parser knows, the request id is this process's own.
 */
export function registerAccessLog(fastify: FastifyInstance, accessLog: AccessLogDestination): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    // The token id when a token called (`user@realm!tokenid`), as PVE logs it.
    const user = request.corralPrincipal ? JSON.stringify(callerName(request.corralPrincipal)) : 'null';
    const bytes = Number(reply.getHeader('content-length')) || 0;
    const ms = Math.round(reply.elapsedTime * 100) / 100;
    accessLog.write(
      `{"time":"${now()}","reqId":"${request.id}","client":${JSON.stringify(clientAddress(request))},` +
        `"user":${user},"method":"${request.method}","path":${JSON.stringify(pathOf(request.url))},` +
        `"status":${reply.statusCode},"bytes":${bytes},"ms":${ms}}\n`,
    );
    done();
  });
}

let lastMs = 0;
let lastTime = '';

/** The time as ISO 8601, formatted once per millisecond: formatting was more than half the cost of a line. */
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = new Date(ms).toISOString();
  }
  return lastTime;
}

/** Request ids unique across restarts: a random prefix per process, then a counter. */
export function requestIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let next = 0;
  return () => `${prefix}-${(next++).toString(36)}`;
}
