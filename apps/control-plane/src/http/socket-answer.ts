import type { Duplex } from 'node:stream';
import type { ErrorFormat } from '../config/config.js';
import type { ApiError } from '../errors/api-error.js';
import { ERROR_STATUS } from '../errors/error-status.js';
import { errorAnswer } from './error-body.js';
import { JSON_CONTENT_TYPE } from './json-content-type.js';
import { reasonPhrase } from './reason-phrase.js';

/** How long a closed connection still takes (and drops) what the client sends, so that its unread bytes do not reset the answer away. */
const LINGER_MS = 2000;

/**
 * Answers an error in the envelope straight on the connection, for a request that Fastify cannot
 * answer (its headers could not be read) or that is cut off while its body arrives; then closes
 * the connection: the request's remaining bytes will never be read as one.
 */
export function answerOnSocket(socket: Duplex, format: ErrorFormat, error: ApiError): void {
  if (socket.destroyed) return;
  const status = ERROR_STATUS[error.code];
  const answer = errorAnswer(format, error, status);
  const body = JSON.stringify(answer.body);
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${status} ${reasonPhrase(answer.reason)}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => setTimeout(() => socket.destroy(), LINGER_MS).unref(),
  );
  socket.resume();
}
