import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { ErrorFormat } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { answerUnreadBody } from './socket-answer.js';

/**
 * Cuts off a request whose body stops arriving: when no byte of it came for `timeoutS` while the
 * server was ready for more, it is answered 408 and the connection closed. The rule is about
 * pauses, not the body's total time, so that a large upload that keeps sending is never cut; a
 * pause while the server itself is behind (the bytes that came wait to be read) does not count.
 */
export function registerBodyTimeout(fastify: FastifyInstance, format: ErrorFormat, timeoutS: number): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    // Most requests have no body (no length, nothing chunked): nothing to watch.
    const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
    if ((length === undefined || length === '0') && chunked === undefined) return done();
    watchBody(request.raw, timeoutS * 1000, () => {
      answerUnreadBody(reply, format, new ApiError('REQUEST_TIMEOUT', `request body timeout: no part of it arrived for ${timeoutS} s`));
    });
    done();
  });
}

function watchBody(raw: IncomingMessage, timeoutMs: number, onStall: () => void): void {
  const socket = raw.socket;
  let bytesRead = socket.bytesRead;
  const check = () => {
    if (raw.complete || socket.destroyed) return;
    const waiting = socket.bytesRead === bytesRead && raw.readableLength === 0;
    if (waiting) return onStall();
    bytesRead = socket.bytesRead;
    timer.refresh();
  };
  const timer = setTimeout(check, timeoutMs).unref();
  raw.once('close', () => clearTimeout(timer));
}
